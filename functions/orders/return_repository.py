"""Returns in DynamoDB (docs/api.md#returns); the only returns module that knows PynamoDB.

Every write of a return that changes what it holds of its order's units is one
transaction of the return and the order's return counts (common.orders.records.
ReturnCount): the return on the condition that its state is still the one read, the
order on the condition that its counts are those read (`devolucionesVersion`). So of two
requests racing for the same delivered units, or two moves of one return, exactly one
goes through; the other is told (StateChanged, CountsChanged) and decides again from
what it finds. The order's lines are never written here: no other write of the order
(a status change, a shipment's delivery) loses a count, nor a count another write.
"""

from typing import Any

from pynamodb.exceptions import TransactWriteError, UpdateError
from pynamodb.transactions import TransactWrite

from common.identity.user_ids import UserIds
from common.orders.model import OrderModel
from common.orders.records import Order, ReturnCount
from common.orders.return_model import (
    COUNTER,
    STATE_SHARDS,
    ReturnModel,
    item_of,
    return_of,
)
from common.orders.return_records import APPROVED, RECEIVED, Return, ReturnLine, unknown_return
from common.platform.history import Entry
from common.platform.settings import Cloud
from common.storage import shards
from common.storage import tables as storage
from common.storage.paging import Page
from common.storage.repository import Repository
from orders.return_rules import CountsChanged, StateChanged


class ReturnRepository(Repository):
    def __init__(self, cloud: Cloud):
        super().__init__(
            cloud,
            ReturnModel,
            Return,
            counter=COUNTER,
            unknown=unknown_return,
            other_models=(OrderModel,),
            item_of=item_of,
            entity_of=return_of,
        )
        self._connection = storage.connection(cloud)
        self._user_ids = UserIds.for_function(cloud)

    def person_erased(self, user_id: int) -> bool:
        """Whether the order's person was erased (their words are then not kept)."""
        return self._user_ids.erased(user_id)

    def page(
        self, after: int, limit: int, estado: str | None = None, user_id: int | None = None
    ) -> Page:
        """One customer's returns from their index (of one state, filtered there); else one
        state's from its shards; else the whole list."""
        if user_id is not None:
            only = ReturnModel.estado == estado if estado is not None else None
            return self._index_page(ReturnModel.by_user, user_id, after, limit, only)
        if estado is not None:
            return self._sharded_page(ReturnModel.by_state, estado, STATE_SHARDS, after, limit)
        return super().page(after, limit)

    def of_order(self, pedido_id: int, after: int, limit: int) -> Page:
        return self._index_page(ReturnModel.by_order, pedido_id, after, limit)

    def all_of_order(self, pedido_id: int) -> list[Return]:
        """Every return of the order (an order has few)."""
        return [return_of(item) for item in ReturnModel.by_order.query(pedido_id)]

    def history(self, return_id: int) -> tuple[Return, list[Entry]]:
        item = storage.get_item(ReturnModel, self.known(return_id))
        if item is None:
            raise unknown_return(return_id)
        return return_of(item), storage.entries(item.historial)

    # -- the writes ------------------------------------------------------------------------

    def create(self, ret: Return, order: Order, counts: tuple[ReturnCount, ...] | None) -> None:
        """Save a new return and, unless `counts` is None (a carrier's return holds no
        returnable units), the order's counts after it, in one transaction.
        CountsChanged when the order's counts are no longer those read."""
        try:
            with TransactWrite(connection=self._connection) as tx:
                tx.save(item_of(ret), condition=ReturnModel.id.does_not_exist())
                if counts is not None:
                    self._counts(tx, order, counts)
                elif ret.envio_id is not None:
                    # A carrier's return: its shipment's, once (OrderModel.envios_devueltos).
                    returned = OrderModel.envios_devueltos
                    tx.update(
                        OrderModel(order.id),
                        actions=[returned.add({ret.envio_id})],
                        condition=OrderModel.id.exists() & ~returned.contains(ret.envio_id),
                    )
        except TransactWriteError as exc:
            raise self._lost(exc, order_at=1) from None

    def change(
        self,
        ret: Return,
        target: str,
        entry: Entry,
        order: Order,
        counts: tuple[ReturnCount, ...] | None = None,
        lines: tuple[ReturnLine, ...] | None = None,
    ) -> Return:
        """Move `ret` to `target` on the condition that its state is still the one read,
        appending `entry` to its history and writing its lines as `lines`; and the order's
        counts as `counts` in the same transaction (unless None). StateChanged when
        another move changed the return first; CountsChanged when another return changed
        the order's counts."""
        m = ReturnModel
        actions: list[Any] = [
            m.estado.set(target),
            m.estado_shard.set(shards.key(target, ret.id, STATE_SHARDS)),
            storage.appended(m.historial, entry),
        ]
        if lines is not None:
            actions.append(m.lineas.set(list(lines)))
        condition = m.id.exists() & (m.estado == ret.estado)
        if target == RECEIVED:
            actions.append(m.recepcion.remove())
        else:  # no move but the reception's while a reception is under way
            condition &= m.recepcion.does_not_exist()
        try:
            with TransactWrite(connection=self._connection) as tx:
                tx.update(m(ret.id), actions=actions, condition=condition)
                if counts is not None:
                    self._counts(tx, order, counts)
        except TransactWriteError as exc:
            raise self._lost(exc, order_at=1) from None
        return self.get(ret.id)

    def claim_reception(self, ret: Return, mark: str) -> None:
        """The reception `mark` claimed on the return, on the condition that it is still
        APROBADA and no other reception was claimed (the same one again: a retry, let
        through). StateChanged otherwise."""
        m = ReturnModel
        try:
            m(ret.id).update(
                actions=[m.recepcion.set(mark)],
                condition=m.id.exists()
                & (m.estado == APPROVED)
                & (m.recepcion.does_not_exist() | (m.recepcion == mark)),
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise
            raise StateChanged() from None

    def release_reception(self, ret: Return, mark: str) -> None:
        """A claimed reception that put nothing back (refused: an unknown warehouse)
        given up, so another may be decided (one claimed since is left as it is)."""
        m = ReturnModel
        try:
            m(ret.id).update(
                actions=[m.recepcion.remove()],
                condition=(m.estado == APPROVED) & (m.recepcion == mark),
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise

    @staticmethod
    def _counts(tx: TransactWrite, order: Order, counts: tuple[ReturnCount, ...]) -> None:
        o = OrderModel
        version = order.devoluciones_version
        unchanged = (
            o.devoluciones_version.does_not_exist()
            if version is None
            else o.devoluciones_version == version
        )
        tx.update(
            OrderModel(order.id),
            actions=[
                o.devoluciones.set({count.linea: count for count in counts}),
                o.devoluciones_version.set((version or 0) + 1),
            ],
            condition=o.id.exists() & unchanged,
        )

    @staticmethod
    def _lost(error: TransactWriteError, order_at: int) -> Exception:
        """Which condition refused the transaction: the order's counts (CountsChanged),
        or the return's own (StateChanged); a transaction on the same items at the same
        moment is as a change of the counts (decided again)."""
        reasons = getattr(error.cause, "cancellation_reasons", None) or []
        codes = [reason.code if reason is not None else None for reason in reasons]
        if len(codes) > order_at and codes[order_at] == "ConditionalCheckFailed":
            return CountsChanged()
        if codes and codes[0] == "ConditionalCheckFailed":
            return StateChanged()
        if any(code == "TransactionConflict" for code in codes):
            return CountsChanged()
        return error
