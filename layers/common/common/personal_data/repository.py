"""What the users function and the erasure function both read and write of a person's
data, by key: their orders and shipments (the orders' and shipping functions' tables),
read by the customer index their lists already use, and stripped of their personal
fields; and an accepted erasure's progress, on its request's item (the record of rights
requests, the users function's table). The erasure function uses these, never the users
function's package.

A person's orders and shipments are read by their index (`byUser`, in id order), a page
at a time, never by a scan: what a person's request costs follows what they have, not the
tables. Their personal fields (common.platform.personal) are removed item by item, each one
UpdateItem on the item's key that keeps everything else, so doing it twice changes
nothing the second time.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pynamodb.attributes import Attribute
from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from common.orders.model import OrderModel
from common.orders.records import Order, Shipment, TrackingEvent
from common.orders.return_model import ReturnModel
from common.orders.return_records import Return
from common.orders.shipment_model import ShipmentModel
from common.orders.tracking_model import TrackingEventModel, event_of
from common.personal_data.erasures import COMPLETED, IN_PROGRESS, Erasure
from common.personal_data.requests_model import SHARDS, DataRequestModel
from common.platform import personal
from common.platform.history import Entry
from common.platform.settings import Cloud
from common.storage import tables as storage
from common.storage.counters import CounterModel
from common.storage.paging import Page
from common.storage.repository import merged_page

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


class ShipmentKind(Kind):
    """A person's shipments, whose tracking events hold their words too
    (common.platform.personal.TRACKING_EVENT): read by the events' own customer index,
    and stripped with their shipment."""

    def events(self, user_id: int) -> Iterator[TrackingEvent]:
        """The tracking events of the person's shipments, read a page at a time as they
        are taken (the reader bounds how many)."""
        for item in TrackingEventModel.by_user.query(user_id, page_size=BATCH):
            yield event_of(item)

    def strip(self, ident: int) -> None:
        """The shipment's personal fields removed, then its events' words (one query of
        its partition, one update for each event that still holds them)."""
        super().strip(ident)
        held = TrackingEventModel.query(
            ident, filter_condition=TrackingEventModel.detalle.exists(), page_size=BATCH
        )
        for item in held:
            try:
                item.update(
                    actions=[TrackingEventModel.detalle.remove()],
                    condition=TrackingEventModel.clave.exists(),
                )
            except UpdateError as exc:
                if not storage.condition_failed(exc):
                    raise


ORDERS = Kind(OrderModel, Order, personal.ORDER)
SHIPMENTS = ShipmentKind(ShipmentModel, Shipment, personal.SHIPMENT)
# The returns of the person's orders: their `comentario` (common.platform.personal.RETURN).
RETURNS = Kind(ReturnModel, Return, personal.RETURN)


def bind(cloud: Cloud) -> None:
    """The orders', shipments', tracking events' and returns' models bound to this
    stack's tables (before ORDERS, SHIPMENTS and RETURNS are read)."""
    storage.bind(cloud, OrderModel, ShipmentModel, TrackingEventModel, ReturnModel)


class ErasureProgress:
    """An accepted erasure's progress, on its request's item
    (common.personal_data.requests_model)."""

    def __init__(self, cloud: Cloud):
        storage.bind(cloud, DataRequestModel, CounterModel)

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


# What the erasure function's sweep reads each run, newest first: the requests of about a
# day (each caller may make 60 a minute; operators a few hundred a day).
SWEEP_READS = 5000


def stuck_erasures(since: str, before: str, limit: int = SWEEP_READS) -> list[int]:
    """The erasures accepted between `since` and `before` (times as the record writes
    them) still in progress: each should have been done within a minute of its request,
    so one still EN_CURSO lost its message (a send that failed after the answer's revoke,
    say). Read by the record's newest-first index, at most `limit` requests."""
    found: list[int] = []
    after = 0
    while limit > 0:
        page = merged_page(
            DataRequestModel.recientes,
            DataRequestModel.orden,
            range(SHARDS),
            after,
            min(limit, 500),
            id_of=lambda item: int(item.orden),
        )
        for item in page.items:
            if item.fecha is not None and item.fecha < since:
                return found
            if item.estado == IN_PROGRESS and (item.fecha or "") < before:
                found.append(int(item.id))
        limit -= len(page.items)
        if page.resume_after is None:
            break
        after = page.resume_after
    return found
