"""Shipping use cases, one function each; the repository and the instant are passed in."""

from datetime import datetime
from typing import Protocol

from common.paging import Page
from shipping import rules
from shipping.rules import Shipment


class Shipments(Protocol):
    """What the use cases need of shipment storage (DynamoDB, or a fake in tests)."""

    def next_id(self) -> int: ...
    def get(self, shipment_id: int) -> Shipment: ...
    def page(self, after: int, limit: int, status: str | None = None,
             pedido_id: int | None = None) -> Page: ...
    def add(self, shipment: Shipment) -> None: ...
    def set_status(self, shipment_id: int, status: str) -> Shipment: ...


def create_shipment(shipments: Shipments, body: dict, now: datetime) -> Shipment:
    request = rules.parse_shipment(body)
    shipment = rules.new_shipment(request, shipments.next_id(), now)
    shipments.add(shipment)
    return shipment


def get_shipment(shipments: Shipments, shipment_id: int) -> Shipment:
    return shipments.get(shipment_id)


def list_shipments(shipments: Shipments, after: int, limit: int, raw_status: str | None,
                   raw_pedido_id: str | None) -> Page:
    """A page of the shipments after id `after`: all, of one status, of one order."""
    status, pedido_id = rules.parse_filters(raw_status, raw_pedido_id)
    return shipments.page(after, limit, status=status, pedido_id=pedido_id)


def change_status(shipments: Shipments, shipment_id: int, raw_status: str | None) -> Shipment:
    """Any of the four states may follow any other (docs/api.md#shipping)."""
    return shipments.set_status(shipment_id, rules.parse_status(raw_status))
