"""A person's data in DynamoDB, and the record of rights requests: the only users module
that knows PynamoDB.

A person's orders and shipments are read by the customer index their lists already use
(`byUser`, in id order), a page at a time, never by a scan: what a person's request
costs follows what they have, not the tables. Their personal fields (common.personal) are
removed item by item, each one UpdateItem on the item's key that keeps everything else,
so doing it twice changes nothing the second time.
"""

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pynamodb.attributes import Attribute
from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from common import counters, personal, storage
from common.counters import CounterModel
from common.history import Entry
from common.id_blocks import IdBlocks
from common.ids import MAX_ID
from common.order_model import OrderModel
from common.paging import Page
from common.records import Order, Shipment
from common.repository import merged_page
from common.settings import Settings
from common.shipment_model import ShipmentModel
from users.model import SHARDS, DataRequestModel
from users.rules import (
    COMPLETED,
    IN_PROGRESS,
    ORDERS_IN_FLIGHT,
    SHIPMENT_DONE,
    DataRequest,
    Erasure,
)

COUNTER = "solicitudes"
# What one read of a person's orders or shipments asks for: DynamoDB's page (1 MB) holds
# about this many.
BATCH = 1000


@dataclass(frozen=True)
class Kept:
    """An order or a shipment as stored, and its kept status changes (its history)."""

    value: Any
    changes: list[Entry]


class Kind:
    """One table of a person's data: its model, read by its customer index, its domain
    type, and which of its attributes are the person's."""

    def __init__(self, model: Any, record: type, fields: personal.Kind):
        self.model, self.record = model, record
        self.personal: list[Attribute] = [getattr(model, field) for field in fields.fields]

    def page(self, user_id: int, after: int, limit: int, only: Condition | None = None) -> Page:
        """The person's items after id `after`, ascending, at most `limit` read (`only`
        may keep fewer), and where the next page starts."""
        results = self.model.by_user.query(
            user_id,
            self.model.id > after,
            limit=limit,
            page_size=limit,
            filter_condition=only,
        )
        items = [
            Kept(storage.to_domain(item, self.record), storage.entries(item.historial))
            for item in results
        ]
        resume = results.last_evaluated_key
        return Page(items, int(resume["id"]["N"]) if resume else None)

    def every(self, user_id: int, only: Condition | None = None) -> Iterator[Kept]:
        """Every item of the person's (that `only` keeps), in id order, a page at a time."""
        after: int | None = 0
        while after is not None:
            page = self.page(user_id, after, BATCH, only)
            yield from page.items
            after = page.resume_after

    def holding_data(self) -> Condition:
        """Keeps the items that still hold a personal field."""
        condition: Condition | None = None
        for attribute in self.personal:
            exists = attribute.exists()
            condition = exists if condition is None else condition | exists
        assert condition is not None  # every kind has personal fields
        return condition

    def strip(self, ident: int) -> None:
        """Remove the item's personal fields, keeping everything else (gone: nothing)."""
        try:
            self.model(ident).update(
                actions=[attribute.remove() for attribute in self.personal],
                condition=self.model.id.exists(),
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise


ORDERS = Kind(OrderModel, Order, personal.ORDER)
SHIPMENTS = Kind(ShipmentModel, Shipment, personal.SHIPMENT)


class PersonsData:
    """A person's orders and shipments (the orders' and shipping functions' tables, read
    and stripped by key)."""

    def __init__(self, settings: Settings):
        storage.bind(settings, OrderModel, ShipmentModel)
        self.orders, self.shipments = ORDERS, SHIPMENTS

    def orders_in_flight(self, user_id: int) -> list[Order]:
        only = OrderModel.status.is_in(*ORDERS_IN_FLIGHT)
        return [kept.value for kept in ORDERS.every(user_id, only)]

    def shipments_in_flight(self, user_id: int) -> list[Shipment]:
        only = ShipmentModel.status != SHIPMENT_DONE
        return [kept.value for kept in SHIPMENTS.every(user_id, only)]

    def follow_email(self, order_id: int, email: str) -> None:
        """The order's userEmail becomes `email`, if it is still in flight (a final order
        keeps the email it was placed with, its record)."""
        try:
            OrderModel(order_id).update(
                actions=[OrderModel.user_email.set(email)],
                condition=OrderModel.id.exists() & OrderModel.status.is_in(*ORDERS_IN_FLIGHT),
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise


def _request_of(item: DataRequestModel) -> DataRequest:
    return DataRequest(
        id=int(item.id),
        user_id=int(item.user_id or 0),
        tipo=str(item.tipo),
        origen=str(item.origen),
        fecha=str(item.fecha),
        resultado=int(item.resultado or 0),
        completada_en=item.completada_en,
    )


def _position(request_id: int) -> int:
    """A request's place in the newest-first list: smaller for later (higher) ids."""
    return MAX_ID - request_id


class Requests:
    """The record of rights requests (users.model), and an accepted erasure's progress on
    its request's item."""

    def __init__(self, settings: Settings):
        storage.bind(settings, DataRequestModel, CounterModel)
        self._ids = IdBlocks(functools.partial(counters.reserve, COUNTER))

    def next_id(self) -> int:
        return self._ids.next_id()

    def record(self, request: DataRequest) -> None:
        """The request as answered. An update, not a put: an accepted erasure's progress
        may be on its item already, and stays."""
        DataRequestModel(request.id).update(
            actions=[
                DataRequestModel.user_id.set(request.user_id),
                DataRequestModel.tipo.set(request.tipo),
                DataRequestModel.origen.set(request.origen),
                DataRequestModel.fecha.set(request.fecha),
                DataRequestModel.resultado.set(request.resultado),
                DataRequestModel.shard.set(request.id % SHARDS),
                DataRequestModel.orden.set(_position(request.id)),
            ]
        )

    def page(self, after: int, limit: int) -> Page:
        """The requests after place `after`, newest first; each page's items and the place
        the next starts after (Page's resume_after is a place, not an id)."""
        page = merged_page(
            DataRequestModel.recientes,
            DataRequestModel.orden,
            range(SHARDS),
            after,
            limit,
            id_of=lambda item: int(item.orden),
        )
        return Page([_request_of(item) for item in page.items], page.resume_after)

    @staticmethod
    def position(request: DataRequest) -> int:
        return _position(request.id)

    def erasure(self, request_id: int) -> Erasure | None:
        """The progress of the erasure request `request_id` records, if it was accepted."""
        try:
            item = DataRequestModel.get(request_id, consistent_read=True)
        except DataRequestModel.DoesNotExist:
            return None
        if item.estado is None or item.user_id is None:
            return None
        return Erasure(
            request_id=request_id,
            user_id=int(item.user_id),
            estado=item.estado,
            paso=item.paso,
            desde=int(item.desde or 0),
            cuenta=item.cuenta,
        )

    def start_erasure(self, request_id: int, user_id: int, cuenta: str | None) -> None:
        """The erasure accepted: in progress from its first step (kept as it is when it
        was started before: a repeat never moves it back)."""
        actions: list[Action] = [
            DataRequestModel.user_id.set(user_id),
            DataRequestModel.estado.set(DataRequestModel.estado | IN_PROGRESS),
        ]
        if cuenta is not None:
            actions.append(DataRequestModel.cuenta.set(DataRequestModel.cuenta | cuenta))
        DataRequestModel(request_id).update(actions=actions)

    def progressed(self, request_id: int, paso: str, desde: int) -> None:
        """Where the erasure is: a step, and the last id done in it."""
        DataRequestModel(request_id).update(
            actions=[DataRequestModel.paso.set(paso), DataRequestModel.desde.set(desde)]
        )

    def erased(self, request_id: int, now: str) -> None:
        """The erasure done: its item's stream record of this change is what tells the
        integrators (usuario.eliminado); the account it deleted is no longer named."""
        try:
            DataRequestModel(request_id).update(
                actions=[
                    DataRequestModel.estado.set(COMPLETED),
                    DataRequestModel.completada_en.set(now),
                    DataRequestModel.cuenta.remove(),
                    DataRequestModel.paso.remove(),
                    DataRequestModel.desde.remove(),
                ],
                condition=DataRequestModel.estado != COMPLETED,
            )
        except UpdateError as exc:  # done before (a message that came twice): as it is
            if not storage.condition_failed(exc):
                raise
