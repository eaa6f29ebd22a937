"""Who may do what with shipments (docs/api.md#who-may-do-what).

Operators: everything. Customers: see the shipments of their own orders (any other is as
unknown to them as an id no shipment has); nothing else.
"""

from common.identity.callers import Caller, require_operator
from shipping.rules import Shipment


def may_create(caller: Caller) -> None:
    require_operator(caller, "create shipments")


def may_change_status(caller: Caller) -> None:
    require_operator(caller, "change a shipment's status")


def may_record_events(caller: Caller) -> None:
    require_operator(caller, "record a shipment's tracking events")


def may_create_carriers(caller: Caller) -> None:
    require_operator(caller, "create carriers")


def sees(caller: Caller, shipment: Shipment) -> bool:
    return caller.owns(shipment.owner_id)


def owner_filter(caller: Caller) -> int | None:
    """Whose shipments a list holds: those of a customer's own orders; all (None) for an
    operator."""
    return None if caller.is_operator else caller.user_id


def may_delete(caller: Caller) -> None:
    require_operator(caller, "delete shipments")
