"""A person's data in DynamoDB, and the record of rights requests: the only users module
that knows PynamoDB. How a person's orders and shipments are read and stripped, and an
erasure's progress recorded, is the layer's (common.personal_data.repository): the erasure
function does both too."""

import contextlib
import itertools

from pynamodb.exceptions import UpdateError

from common.orders.model import OrderModel
from common.orders.records import Order, Shipment
from common.orders.return_model import ReturnModel
from common.orders.return_records import OPEN as RETURNS_OPEN
from common.orders.return_records import Return
from common.orders.shipment_model import ShipmentModel
from common.personal_data.repository import ORDERS, RETURNS, SHIPMENTS, ErasureProgress
from common.personal_data.repository import bind as bind_persons
from common.personal_data.requests_model import SHARDS, DataRequestModel
from common.platform.ids import MAX_ID
from common.platform.settings import Cloud
from common.storage import counters
from common.storage import tables as storage
from common.storage.paging import Page
from common.storage.repository import merged_page
from users.rules import ORDERS_IN_FLIGHT, SHIPMENT_DONE, DataRequest

COUNTER = "solicitudes"
# What an erasure refused for orders in flight names of them (OPEN_ORDERS' details).
IN_FLIGHT_NAMED = 100


class PersonsData:
    """A person's orders and shipments (the orders' and shipping functions' tables, read
    and stripped by key)."""

    def __init__(self, cloud: Cloud):
        bind_persons(cloud)
        self.orders, self.shipments, self.returns = ORDERS, SHIPMENTS, RETURNS

    def orders_in_flight(self, user_id: int, limit: int | None = IN_FLIGHT_NAMED) -> list[Order]:
        """The first `limit` orders in flight (None: all): for an erasure one is enough to
        wait for, and a few are named; the rest are not read."""
        only = OrderModel.status.is_in(*ORDERS_IN_FLIGHT)
        found = itertools.islice(ORDERS.every(user_id, only), limit)
        return [kept.value for kept in found]

    def shipments_in_flight(self, user_id: int) -> list[Shipment]:
        only = ShipmentModel.status != SHIPMENT_DONE
        found = itertools.islice(SHIPMENTS.every(user_id, only), IN_FLIGHT_NAMED)
        return [kept.value for kept in found]

    def returns_in_flight(self, user_id: int) -> list[Return]:
        """The person's returns still open (SOLICITADA, APROBADA): an erasure waits."""
        only = ReturnModel.estado.is_in(*RETURNS_OPEN)
        found = itertools.islice(RETURNS.every(user_id, only), IN_FLIGHT_NAMED)
        return [kept.value for kept in found]

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


class Requests(ErasureProgress):
    """The record of rights requests (common.personal_data.requests_model), and an
    accepted erasure's progress on its request's item (common.personal_data.repository)."""

    def next_id(self) -> int:
        """The next request's id, one at a time from the counter: the record lists newest
        first by id, so ids must rise with time across environments, which blocks of ids
        (one per environment) do not (two environments' requests were listed out of
        order). A rights request is rare: one counter write each costs nothing."""
        return counters.reserve(COUNTER, 1)

    def warm(self, absent_id: int) -> None:
        """At init: a read of a request no one made and of the requests' counter, which
        open the connections a request's record writes through (PynamoDB's own, one per
        table), so the first request records at the cost of the next. Reads only: the
        warm-up is no one's request."""
        with contextlib.suppress(DataRequestModel.DoesNotExist):
            DataRequestModel.get(absent_id)
        with contextlib.suppress(counters.CounterModel.DoesNotExist):
            counters.CounterModel.get(COUNTER)

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
