"""Who may manage webhooks (docs/api.md#who-may-do-what): operators only; a customer is
refused (403) before anything of the request is read."""

from common.identity.callers import Caller, require_operator


def may_manage_webhooks(caller: Caller) -> None:
    require_operator(caller, "manage webhooks")
