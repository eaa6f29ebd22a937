"""Orders in DynamoDB; the only orders module that knows PynamoDB."""

from common.paging import Page
from common.repository import Repository
from common.settings import Settings
from orders.model import OrderModel
from orders.rules import Order, unknown_order

COUNTER = "orders"


class OrderRepository(Repository):
    def __init__(self, settings: Settings):
        super().__init__(settings, OrderModel, Order, counter=COUNTER, unknown=unknown_order)

    def page(self, after: int, limit: int, status: str | None = None) -> Page:
        if status is None:
            return super().page(after, limit)
        return self._index_page(OrderModel.by_status, status, after, limit)
