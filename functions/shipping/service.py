"""Shipping use cases, one function each; the repository, whose an order is, and the
instant are passed in."""

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from common import records
from common.callers import Caller
from common.clock import to_iso
from common.history import Entry
from common.paging import Page
from shipping import access, rules
from shipping.rules import Shipment


class Shipments(Protocol):
    """What the use cases need of shipment storage (DynamoDB, or a fake in tests)."""

    def next_id(self) -> int: ...
    def get(self, shipment_id: int) -> Shipment: ...
    def page(
        self,
        after: int,
        limit: int,
        status: str | None = None,
        pedido_id: int | None = None,
        owner_id: int | None = None,
    ) -> Page: ...
    def add(self, shipment: Shipment) -> None: ...
    def set_status(self, shipment_id: int, status: str, change: Entry) -> Shipment:
        """Unless it is in `status` already: then it is returned unchanged."""

    def history(self, shipment_id: int) -> tuple[Shipment, list[Entry]]: ...


# An order's id -> its customer's userId (None: no such order); raises Unavailable.
OwnerOf = Callable[[int], int | None]


def create_shipment(
    shipments: Shipments, owner_of: OwnerOf, new_shipment: rules.NewShipment, now: datetime
) -> Shipment:
    """A shipment of a checked new shipment (rules.parse_shipment), recording whose order it
    fulfils."""
    owner = owner_of(new_shipment.pedido_id)
    shipment = rules.created_shipment(new_shipment, shipments.next_id(), now, owner)
    shipments.add(shipment)
    return shipment


def get_shipment(shipments: Shipments, caller: Caller, shipment_id: int) -> Shipment:
    """The shipment; one of someone else's orders is, to a customer, as unknown as an id
    no shipment has."""
    shipment = shipments.get(shipment_id)
    if not access.sees(caller, shipment):
        raise rules.unknown_shipment(shipment_id)
    return shipment


def list_shipments(
    shipments: Shipments,
    caller: Caller,
    after: int,
    limit: int,
    raw_status: str | None,
    raw_pedido_id: str | None,
) -> Page:
    """A page of the shipments after id `after` the caller may see: all, of one status,
    of one order."""
    status, pedido_id = rules.parse_filters(raw_status, raw_pedido_id)
    return shipments.page(
        after, limit, status=status, pedido_id=pedido_id, owner_id=access.owner_filter(caller)
    )


def change_status(
    shipments: Shipments, caller: Caller, shipment_id: int, raw_status: str | None, now: datetime
) -> Shipment:
    """Any of the four states may follow any other (docs/api.md#shipping); each change is
    in the shipment's history (docs/api.md#history), a same-state PATCH is not."""
    status = rules.parse_status(raw_status)
    return shipments.set_status(shipment_id, status, Entry(status, to_iso(now), caller.role))


def shipment_history(shipments: Shipments, caller: Caller, shipment_id: int) -> list[Entry]:
    """The shipment's history (docs/api.md#history); one of someone else's orders is, to a
    customer, as unknown as an id no shipment has. Only operators create shipments."""
    shipment, changes = shipments.history(shipment_id)
    if not access.sees(caller, shipment):
        raise rules.unknown_shipment(shipment_id)
    return records.shipment_history(shipment, changes)
