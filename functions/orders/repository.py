"""Order storage behind plain functions."""

from common.ids import next_id
from common.storage import all_by_id, get_or_404, insert
from orders.model import OrderModel

COUNTER = "orders"


def add(**attributes) -> OrderModel:
    return insert(OrderModel(next_id(COUNTER), **attributes))


def get(order_id: int | None) -> OrderModel:
    return get_or_404(OrderModel, order_id, "ORDER_NOT_FOUND", "Order")


def list_all() -> list[OrderModel]:
    return all_by_id(OrderModel)
