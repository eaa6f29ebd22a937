"""Who may read the dashboard (docs/api.md#who-may-do-what): operators only; a customer
is refused (403) before anything is read."""

from common.identity.callers import Caller, require_operator


def may_read_dashboard(caller: Caller) -> None:
    require_operator(caller, "read the dashboard")
