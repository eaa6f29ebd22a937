"""Order storage behind plain functions."""

from common.storage import add_with_next_id, all_by_id, get_or_404
from orders.model import OrderModel

COUNTER = "orders"


def add(**attributes) -> OrderModel:
    return add_with_next_id(OrderModel, COUNTER, **attributes)


def get(order_id: int | None) -> OrderModel:
    return get_or_404(OrderModel, order_id, "ORDER_NOT_FOUND", "Order")


def list_all() -> list[OrderModel]:
    return all_by_id(OrderModel)
