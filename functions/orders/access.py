"""Who may do what with orders (docs/api.md#who-may-do-what).

Operators: everything. Customers: place orders for their own userId, see their own
orders (anyone else's is as unknown to them as an id no order has), and cancel their own.
"""

from common.identity.callers import Caller
from common.orders.return_records import CANCELLED as RETURN_CANCELLED
from common.platform.errors import Forbidden
from orders.rules import CANCELLED, NewOrder, Order


def may_place(caller: Caller, new_order: NewOrder) -> None:
    """Checked once the order is valid: a customer's for someone else is refused."""
    if not caller.owns(new_order.user_id):
        raise Forbidden("A customer may place orders only for their own userId")


def may_move_to(caller: Caller, raw_status: str | None) -> None:
    """Checked before anything else: a customer may only cancel."""
    if not caller.is_operator and raw_status != CANCELLED:
        raise Forbidden(f"A customer may only move an order to {CANCELLED}")


def sees(caller: Caller, order: Order) -> bool:
    return caller.owns(order.user_id)


def owner_filter(caller: Caller) -> int | None:
    """Whose orders a list holds: a customer's own; everyone's (None) for an operator."""
    return None if caller.is_operator else caller.user_id


def may_move_return_to(caller: Caller, raw_status: str | None) -> None:
    """Checked before anything else: a customer may only cancel a return."""
    if not caller.is_operator and raw_status != RETURN_CANCELLED:
        raise Forbidden(f"A customer may only move a return to {RETURN_CANCELLED}")


def may_receive(caller: Caller) -> None:
    """A reception decides where units go: operators only."""
    if not caller.is_operator:
        raise Forbidden("Only operators receive returns")
