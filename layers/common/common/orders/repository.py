"""The orders table as more than the orders function reads it: a page of one status (the
stock repair's APROBADO orders), the orders of several ids, and the outbox (the event
sweep's pending events, taken off once published). The orders function's repository is
this one with the verbs only it has (orders.repository); the stock repair and the event
sweep read through this one, neither importing the orders function."""

from pynamodb.exceptions import UpdateError

from common.orders.model import PENDING, PENDING_SHARDS, STATUS_SHARDS, OrderModel
from common.orders.records import Order, unknown_order
from common.platform.logs import get_logger
from common.platform.settings import Cloud
from common.storage import shards
from common.storage import tables as storage
from common.storage.paging import Page
from common.storage.repository import Repository

COUNTER = "orders"
_logger = get_logger("orders")


def item_of(order: Order) -> OrderModel:
    """The item of an order: its fields, its shard of the whole list and of its status."""
    item = storage.listed(storage.to_item(OrderModel, order))
    item.status_shard = shards.key(order.status, order.id, STATUS_SHARDS)
    return item


class OrderReader(Repository):
    def __init__(self, cloud: Cloud):
        super().__init__(
            cloud, OrderModel, Order, counter=COUNTER, unknown=unknown_order, item_of=item_of
        )

    def page(self, after: int, limit: int, status: str | None = None) -> Page:
        """A page of the orders of `status` (their ids from its shards, then the orders by
        key: the index does not project their lines, and a projection cannot change in
        place), or of every order."""
        if status is None:
            return super().page(after, limit)
        return self._sharded_read_page(OrderModel.by_status, status, STATUS_SHARDS, after, limit)

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
