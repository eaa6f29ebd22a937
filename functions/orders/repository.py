"""Orders in DynamoDB; the only orders module that knows PynamoDB.

A status change is decided by one conditional UpdateItem on the status the move was
decided on: of two conflicting moves at once, the server lets exactly one through, and
the other is told (StatusChanged) to decide again from what it finds.
"""

from typing import Any

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.operand import Path

from common.identity.user_ids import UserIds
from common.orders.model import PENDING, PENDING_SHARDS, STATUS_SHARDS, OrderModel
from common.orders.repository import COUNTER as COUNTER
from common.orders.repository import OrderReader, item_of
from common.platform.history import Entry
from common.platform.settings import Cloud
from common.storage import shards
from common.storage import tables as storage
from common.storage.paging import Page
from orders.rules import Order, StatusChanged, unknown_order


class OrderRepository(OrderReader):
    """The orders' own reader (common.orders.repository: a page of a status, the outbox)
    and the verbs only the orders function has: a customer's page, a status change, the
    history, a new order saved with its event pending."""

    def __init__(self, cloud: Cloud):
        super().__init__(cloud)
        self._user_ids = UserIds.for_function(cloud)

    def page(
        self, after: int, limit: int, status: str | None = None, user_id: int | None = None
    ) -> Page:
        """One customer's orders from their index (of one status, filtered there: a
        customer has few); else one status's from its shards; else the whole list."""
        if user_id is not None:
            only = OrderModel.status == status if status is not None else None
            return self._index_page(OrderModel.by_user, user_id, after, limit, only)
        return super().page(after, limit, status)

    def set_status(
        self, order: Order, target: str, change: Entry, lines: tuple | None = None
    ) -> Order:
        """Move `order` to `target`, on the condition that its status is still the one it
        was read with, appending `change` to its history and writing its lines as `lines`
        (where their units are held, how many are on their way) in the same write; returns
        it as stored after. StatusChanged when another move changed it first."""
        item = OrderModel(self.known(order.id))
        written = [OrderModel.lineas.set(list(lines))] if lines is not None else []
        try:
            # UpdateItem returns ALL_NEW, which PynamoDB loads into `item`. The status
            # shard moves with the status, and the history grows, in the same write.
            item.update(
                actions=[
                    OrderModel.status.set(target),
                    OrderModel.status_shard.set(shards.key(target, order.id, STATUS_SHARDS)),
                    storage.appended(OrderModel.historial, change),
                    *written,
                ],
                condition=OrderModel.id.exists() & (OrderModel.status == order.status),
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise
            raise StatusChanged(order.id) from None
        return self._entity_of(item)

    def all_on_their_way(self, order: Order) -> None:
        """Every line's `cantidadEnviada` its `cantidad`, by path (nothing else of the lines
        written), while the order is EN_ENVIO; an order whose lines are not stored counts
        them so by its status already."""
        m = OrderModel
        actions: list[Any] = [
            Path("lineas")[index]["cantidadEnviada"].set(line.cantidad)
            for index, line in enumerate(order.lineas)
        ]
        try:
            OrderModel(order.id).update(
                actions=actions, condition=(m.status == "EN_ENVIO") & m.lineas.exists()
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise

    def history(self, order_id: int) -> tuple[Order, list[Entry]]:
        """The order and its kept status changes."""
        item = storage.get_item(OrderModel, self.known(order_id))
        if item is None:
            raise unknown_order(order_id)
        return self._entity_of(item), storage.entries(item.historial)

    def add(self, order: Order) -> None:
        """Save a new order with its event pending (an outbox): from the moment the order
        exists, the sweep will publish its event unless this request does. Its userId is
        claimed first (common.identity.user_ids), so no order carries an id a new account could be
        given; Conflict, nothing saved, while an account is being made with it, once
        its person was erased, or when its account's email is not the order's."""
        self._user_ids.for_order(order.user_id, order.user_email)
        item = item_of(order)
        item.evento_pendiente = shards.key(PENDING, order.id, PENDING_SHARDS)
        storage.insert(item)
