"""Who may do what with the catalog and the warehouses (docs/api.md#who-may-do-what):
everyone may read the catalog; only operators may change it, read the low-stock alerts,
the stock per warehouse and the reservations, or manage warehouses."""

from common.identity.callers import Caller, require_operator, require_service


def may_change_catalog(caller: Caller) -> None:
    require_operator(caller, "create, replace or delete products")


def may_read_alerts(caller: Caller) -> None:
    require_operator(caller, "read the low-stock alerts")


def may_read_reservations(caller: Caller) -> None:
    require_operator(caller, "read a product's reservations")


def may_keep_stock(caller: Caller) -> None:
    require_operator(caller, "read or change the stock per warehouse")


def may_manage_warehouses(caller: Caller) -> None:
    require_operator(caller, "manage warehouses")


def may_move_stock(caller: Caller) -> None:
    """An order's units move with its lifecycle, at the orders service's request alone."""
    require_service(caller, "move an order's stock")
