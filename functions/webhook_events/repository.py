"""A stream record's item, before and after, as the domain object of its service: read
with that service's own model and domain type (its artifact carries the inventory,
orders and shipping packages: functions/Makefile), so an event's `data` is the item as
the API shows it. The only webhook_events module that knows PynamoDB."""

from datetime import UTC, datetime
from typing import Any

from pynamodb.models import Model

from common import storage
from common.settings import Settings
from inventory.model import ProductModel
from inventory.rules import Product
from orders.model import OrderModel
from orders.rules import Order
from shipping.model import ShipmentModel
from shipping.rules import Shipment
from webhook_events.changes import ORDER, PRODUCT, SHIPMENT, Change

# Each table whose stream makes events: the kind of its items, their model, their type.
READ = {
    "OrdersTable": (ORDER, OrderModel, Order),
    "ShipmentsTable": (SHIPMENT, ShipmentModel, Shipment),
    "ProductsTable": (PRODUCT, ProductModel, Product),
}


class Images:
    """Stream records (DynamoDB's, as Lambda hands them over) read as changes."""

    def __init__(self, settings: Settings):
        self._tables = {settings.table_name(logical_id): read for logical_id, read in READ.items()}

    def change_of(self, record: dict) -> Change | None:
        """The change a record is, or None for a table no event is made of."""
        table = record["eventSourceARN"].split(":table/", 1)[1].split("/", 1)[0]
        if table not in self._tables:
            return None
        kind, model, domain = self._tables[table]
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
            old=_domain(model, domain, stream.get("OldImage")),
            new=_domain(model, domain, stream.get("NewImage")),
        )


def _domain(model: type[Model], domain: type, image: dict | None) -> Any:
    if image is None:
        return None
    return storage.to_domain(model.from_raw_data(image), domain)
