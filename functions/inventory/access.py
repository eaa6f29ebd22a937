"""Who may do what with the catalog (docs/api.md#who-may-do-what): everyone may read it;
only operators may change it or read the low-stock alerts."""

from common.callers import Caller, require_operator, require_service


def may_change_catalog(caller: Caller) -> None:
    require_operator(caller, "create, replace or delete products")


def may_read_alerts(caller: Caller) -> None:
    require_operator(caller, "read the low-stock alerts")


def may_read_reservations(caller: Caller) -> None:
    require_operator(caller, "read a product's reservations")


def may_move_stock(caller: Caller) -> None:
    """An order's units move with its lifecycle, at the orders service's request alone."""
    require_service(caller, "move an order's stock")
