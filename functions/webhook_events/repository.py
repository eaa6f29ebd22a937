"""A stream record's item, before and after, as the domain object of its service: read
with that service's own model and domain type, which the layer publishes
(common.orders.model, common.orders.shipment_model, common.orders.records,
common.stock.product_model, common.stock.records), so an event's `data` is the item as
the API shows it. The only webhook_events module that knows PynamoDB."""

from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any

from pynamodb.models import Model

from common.orders.model import OrderModel
from common.orders.records import Order, Shipment
from common.orders.return_model import ReturnModel, return_of
from common.orders.shipment_model import ShipmentModel
from common.platform.settings import Cloud
from common.stock.product_model import ProductModel, product_of
from common.storage import tables as storage
from webhook_events.changes import (
    ORDER,
    PRODUCT,
    REQUEST,
    RETURN,
    SHIPMENT,
    Change,
    RequestState,
)


def _request_state(image: dict) -> RequestState:
    """A rights request's item (the users function's DataRequestsTable), read off its
    image: whose it is, and an erasure's progress (its two fields an event needs)."""
    user_id = image.get("userId", {}).get("N")
    return RequestState(
        int(user_id) if user_id is not None else None, image.get("estado", {}).get("S")
    )


# Each table whose stream makes events: the kind of its items, their model (None: the
# image is read as it is), and how its service reads one (the same reader as its
# repository: a product written before reservations holds none reserved).
READ: dict[str, tuple[str, type[Model] | None, Callable[[Any], Any]]] = {
    "OrdersTable": (ORDER, OrderModel, partial(storage.to_domain, domain_cls=Order)),
    "ShipmentsTable": (SHIPMENT, ShipmentModel, partial(storage.to_domain, domain_cls=Shipment)),
    "ProductsTable": (PRODUCT, ProductModel, product_of),
    "DataRequestsTable": (REQUEST, None, _request_state),
    "ReturnsTable": (RETURN, ReturnModel, return_of),
}


class Images:
    """Stream records (DynamoDB's, as Lambda hands them over) read as changes."""

    def __init__(self, cloud: Cloud):
        self._tables = {cloud.table_name(logical_id): read for logical_id, read in READ.items()}

    def change_of(self, record: dict) -> Change | None:
        """The change a record is, or None for a table no event is made of."""
        table = record["eventSourceARN"].split(":table/", 1)[1].split("/", 1)[0]
        if table not in self._tables:
            return None
        kind, model, read = self._tables[table]
        stream = record["dynamodb"]
        seconds = stream.get("ApproximateCreationDateTime")
        at = (
            datetime.fromtimestamp(float(seconds), UTC).replace(tzinfo=None)
            if seconds is not None
            else datetime.now(UTC).replace(tzinfo=None)
        )
        return Change(
            kind=kind,
            record=f"{table}:{record['eventID']}",
            at=at,
            old=_domain(model, read, stream.get("OldImage")),
            new=_domain(model, read, stream.get("NewImage")),
        )


def _domain(model: type[Model] | None, read: Callable[[Any], Any], image: dict | None) -> Any:
    if image is None:
        return None
    return read(model.from_raw_data(image) if model is not None else image)
