"""An order's parts as its shipments write them in the orders' table
(docs/api.md#shipments-of-parts): its units on shipments, counted in the same
transaction as each shipment made or deleted, and its lines' units on their way and
delivered, counted once per shipment.

Only these attributes of an order's item are written here: `enEnvios` (by key, by
arithmetic on the server), `enviosSalidos` and `enviosEntregados` (the shipments already
counted: each count's condition is that its shipment is not among them), a line's
`cantidadEnviada` or `cantidadEntregada` (by its path, on the condition that it is as
read), and the status when the order follows its parts (APROBADO -> EN_ENVIO,
EN_ENVIO -> ENTREGADO) with its history entry. The whole `lineas` attribute is written
only for an order placed before lines were stored, on the condition that it has none.
"""

from collections.abc import Callable
from typing import Any

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.operand import Path
from pynamodb.transactions import TransactWrite

from common.orders.model import STATUS_SHARDS, OrderModel, on_shipments_key
from common.orders.records import Order, OrderLine, Shipment
from common.platform import history
from common.platform.errors import Conflict
from common.platform.history import Entry
from common.platform.settings import Cloud
from common.storage import shards
from common.storage import tables as storage
from shipping import parts as rules
from shipping.parts import OrderParts

# Rounds of a count whose order another write changed between its read and its own.
MAX_ATTEMPTS = 12
# What one shipment adds to (or takes from) its order, in the shipment's transaction.
Counted = Callable[[TransactWrite], None]


def _line_path(index: int, name: str) -> Any:
    return Path("lineas")[index][name]


class OrderPartsRepository:
    def __init__(self, cloud: Cloud):
        storage.bind(cloud, OrderModel)

    def read(self, pedido_id: int) -> OrderParts | None:
        """The order as its shipments see it, read consistently; None: no such order."""
        item = storage.get_item(OrderModel, pedido_id)
        if item is None:
            return None
        return OrderParts(
            order=storage.to_domain(item, Order),
            on_shipments=dict(item.en_envios or {}),
            departed=frozenset(int(i) for i in item.envios_salidos or ()),
            delivered=frozenset(int(i) for i in item.envios_entregados or ()),
            lines_stored=item.lineas is not None,
            counts_stored=item.en_envios is not None,
        )

    def prepare(self, parts: OrderParts) -> None:
        """The order's map of units on shipments, there before the first shipment adds to
        it by key (a write made once: of two at once, one does it)."""
        if parts.counts_stored:
            return
        m = OrderModel
        try:
            OrderModel(parts.order.id).update(
                actions=[m.en_envios.set({})],
                condition=m.id.exists() & m.en_envios.does_not_exist(),
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise

    def counted(self, parts: OrderParts, shipment: Shipment, sign: int = 1) -> Counted:
        """The order's update a shipment's create (`sign` 1) or delete (-1) adds to its
        transaction: each (line, warehouse) count moved by the shipment's units, on the
        condition, for a create, that none passes what the line holds there (so two
        creates at once never put a unit on two shipments) and the order still ships."""
        m = OrderModel
        assert shipment.bodega_id is not None
        held = {
            line.linea: {a.bodega_id: a.cantidad for a in line.asignaciones}
            for line in parts.order.lineas
        }
        actions: list[Any] = []
        condition: Condition = m.id.exists() & m.en_envios.exists()
        if sign > 0:
            condition &= m.status.is_in(*rules.SHIPPABLE)
        for line in shipment.lineas:
            path = Path(["enEnvios", on_shipments_key(line.linea, shipment.bodega_id)])
            if sign > 0:
                limit = held[line.linea].get(shipment.bodega_id, 0) - line.cantidad
                actions.append(path.set((path | 0) + line.cantidad))
                condition &= path.does_not_exist() | (path <= limit)
            else:
                actions.append(path.set(path - line.cantidad))
                condition &= path >= line.cantidad

        def add(tx: TransactWrite) -> None:
            tx.update(OrderModel(parts.order.id), actions=actions, condition=condition)

        return add

    def departed(self, shipment: Shipment, now: str, whole: bool) -> None:
        """The shipment's units counted on their way in its order's lines, once; the order
        moved to EN_ENVIO by itself with its first part on the road (`system` in its
        history). `whole`: the order's own take-out had taken every unit."""

        def change(parts: OrderParts) -> tuple[dict[int, OrderLine], str | None] | None:
            if shipment.id in parts.departed:
                return None
            moves = "EN_ENVIO" if parts.order.status == "APROBADO" else None
            return rules.departure(parts, shipment, whole), moves

        self._count(shipment, now, OrderModel.envios_salidos, "cantidadEnviada", change)

    def delivered(self, shipment: Shipment, now: str) -> None:
        """The shipment's units counted delivered in its order's lines, once; the order
        moved to ENTREGADO by itself when every line is wholly delivered."""

        def change(parts: OrderParts) -> tuple[dict[int, OrderLine], str | None] | None:
            if shipment.id in parts.delivered:
                return None
            lines, complete = rules.delivery(parts, shipment)
            moves = "ENTREGADO" if complete and parts.order.status == "EN_ENVIO" else None
            return lines, moves

        self._count(shipment, now, OrderModel.envios_entregados, "cantidadEntregada", change)

    def _count(
        self,
        shipment: Shipment,
        now: str,
        marks: Any,
        counter: str,
        change: Callable[[OrderParts], tuple[dict[int, OrderLine], str | None] | None],
    ) -> None:
        m = OrderModel
        for _ in range(MAX_ATTEMPTS):
            parts = self.read(shipment.pedido_id)
            if parts is None:
                return  # gone: nothing to count
            decided = change(parts)
            if decided is None:
                return  # counted before
            lines, target = decided
            order = parts.order
            actions: list[Any] = [marks.add({shipment.id})]
            condition = (marks.does_not_exist() | ~marks.contains(shipment.id)) & (
                m.status == order.status
            )
            if parts.lines_stored:
                for index, line in enumerate(order.lineas):
                    if line.linea in lines:
                        path = _line_path(index, counter)
                        after = lines[line.linea]
                        value = (
                            after.cantidad_enviada
                            if counter == "cantidadEnviada"
                            else after.cantidad_entregada
                        )
                        before = (
                            line.cantidad_enviada
                            if counter == "cantidadEnviada"
                            else line.cantidad_entregada
                        )
                        actions.append(path.set(value))
                        condition &= path == before
            else:
                whole = [lines.get(line.linea, line) for line in order.lineas]
                actions.append(m.lineas.set(whole))
                condition &= m.lineas.does_not_exist()
            if target is not None:
                actions += [
                    m.status.set(target),
                    m.status_shard.set(shards.key(target, order.id, STATUS_SHARDS)),
                    storage.appended(m.historial, Entry(target, now, history.SYSTEM)),
                ]
            try:
                OrderModel(order.id).update(actions=actions, condition=condition)
            except UpdateError as exc:
                if not storage.condition_failed(exc):
                    raise
                continue  # changed meanwhile (another count, the order's own move): again
            return
        raise Conflict("CONCURRENT_UPDATE", f"Order {shipment.pedido_id} kept changing; retry")
