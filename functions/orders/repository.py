"""Order storage behind plain functions."""

from pynamodb.exceptions import DoesNotExist

from common.errors import not_found
from common.ids import next_id
from orders.model import OrderModel

COUNTER = "orders"


def add(**attributes) -> OrderModel:
    order = OrderModel(next_id(COUNTER), **attributes)
    # The counter never hands out an id twice; the condition makes that a checked fact.
    order.save(condition=OrderModel.id.does_not_exist())
    return order


def get(order_id: int | None) -> OrderModel:
    if order_id is not None:
        try:
            return OrderModel.get(order_id, consistent_read=True)
        except DoesNotExist:
            pass
    raise not_found("ORDER_NOT_FOUND", "Order", order_id)


def list_all() -> list[OrderModel]:
    return sorted(OrderModel.scan(consistent_read=True), key=lambda o: o.id)
