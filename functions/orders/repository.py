"""Orders in DynamoDB; the only orders module that knows PynamoDB.

A status change is decided by one conditional UpdateItem on the status the move was
decided on: of two conflicting moves at once, the server lets exactly one through, and
the other is told (StatusChanged) to decide again from what it finds.
"""

from pynamodb.exceptions import UpdateError

from common import shards, storage
from common.history import Entry
from common.logs import get_logger
from common.paging import Page
from common.repository import Repository
from common.settings import Settings
from common.user_ids import UserIds
from orders.model import PENDING, PENDING_SHARDS, STATUS_SHARDS, OrderModel
from orders.rules import Order, StatusChanged, unknown_order

COUNTER = "orders"
_logger = get_logger("orders")


def item_of(order: Order) -> OrderModel:
    """The item of an order: its fields, its shard of the whole list and of its status."""
    item = storage.listed(storage.to_item(OrderModel, order))
    item.status_shard = shards.key(order.status, order.id, STATUS_SHARDS)
    return item


class OrderRepository(Repository):
    def __init__(self, settings: Settings):
        super().__init__(
            settings, OrderModel, Order, counter=COUNTER, unknown=unknown_order, item_of=item_of
        )
        self._user_ids = UserIds.for_function(settings)

    def page(
        self, after: int, limit: int, status: str | None = None, user_id: int | None = None
    ) -> Page:
        """One customer's orders from their index (of one status, filtered there: a
        customer has few); else one status's from its shards; else the whole list."""
        if user_id is not None:
            only = OrderModel.status == status if status is not None else None
            return self._index_page(OrderModel.by_user, user_id, after, limit, only)
        if status is None:
            return super().page(after, limit)
        return self._sharded_page(OrderModel.by_status, status, STATUS_SHARDS, after, limit)

    def set_status(self, order: Order, target: str, change: Entry) -> Order:
        """Move `order` to `target`, on the condition that its status is still the one it
        was read with, appending `change` to its history in the same write; returns it as
        stored after. StatusChanged when another move changed it first."""
        item = OrderModel(self.known(order.id))
        try:
            # UpdateItem returns ALL_NEW, which PynamoDB loads into `item`. The status
            # shard moves with the status, and the history grows, in the same write.
            item.update(
                actions=[
                    OrderModel.status.set(target),
                    OrderModel.status_shard.set(shards.key(target, order.id, STATUS_SHARDS)),
                    storage.appended(OrderModel.historial, change),
                ],
                condition=OrderModel.id.exists() & (OrderModel.status == order.status),
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise
            raise StatusChanged(order.id) from None
        return self._entity_of(item)

    def history(self, order_id: int) -> tuple[Order, list[Entry]]:
        """The order and its kept status changes."""
        item = storage.get_item(OrderModel, self.known(order_id))
        if item is None:
            raise unknown_order(order_id)
        return self._entity_of(item), storage.entries(item.historial)

    def add(self, order: Order) -> None:
        """Save a new order with its event pending (an outbox): from the moment the order
        exists, the sweep will publish its event unless this request does. Its userId is
        claimed first (common.user_ids), so no order carries an id a new account could be
        given; Conflict USER_ID_REGISTERING, nothing saved, while an account is being
        made with it."""
        self._user_ids.for_order(order.user_id)
        item = item_of(order)
        item.evento_pendiente = shards.key(PENDING, order.id, PENDING_SHARDS)
        storage.insert(item)

    def pending_events(self, limit: int) -> list[Order]:
        """The oldest orders (the lowest ids) whose event is still to be published, at
        most `limit`, merged from the pending shards."""
        return self._sharded_page(
            OrderModel.pending_events, PENDING, PENDING_SHARDS, 0, limit
        ).items

    def event_published(self, order_id: int) -> None:
        """The order's event is out: off the sweep's list. Best effort: left on it, the
        event is published once more, which the listener absorbs, whereas failing now
        would fail a request whose order is saved and whose event is out."""
        try:
            OrderModel(order_id).update(
                actions=[OrderModel.evento_pendiente.remove()], condition=OrderModel.id.exists()
            )
        except UpdateError as exc:  # gone: nothing left to publish
            if not storage.condition_failed(exc):
                _logger.warning(
                    "order left on the sweep's list",
                    extra={"pedidoId": order_id, "error": repr(exc)},
                )
