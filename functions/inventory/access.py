"""Who may do what with the catalog (docs/api.md#who-may-do-what): everyone may read it;
only operators may change it or read the low-stock alerts."""

from common.callers import Caller, require_operator


def may_change_catalog(caller: Caller) -> None:
    require_operator(caller, "create, replace or delete products")


def may_read_alerts(caller: Caller) -> None:
    require_operator(caller, "read the low-stock alerts")
