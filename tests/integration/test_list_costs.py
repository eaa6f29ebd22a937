"""What a list costs in DynamoDB reads (docs/api.md#lists): a page follows its items, not
the table, and reads each shard of its index once (docs/capacity.md). Counted from
botocore's events on the process's DynamoDB client."""

from decimal import Decimal

import pytest

from common.platform import aws
from common.platform.settings import Cloud
from common.storage.tables import LIST_SHARDS
from inventory.model import ALERT_SHARDS
from inventory.repository import ProductRepository
from inventory.rules import parse_product, product
from tests.support.api import body
from tests.support.metering import metered


@pytest.fixture
def catalog(tables) -> list[int]:
    """300 products; the ids of the 3 in alert (the 100th, 200th and 300th created), which
    are not 100, 200, 300 on every machine: a block of ids not used up within its lifetime is
    dropped (common.storage.id_blocks), and a loaded machine takes longer than that over
    300 creates, so the test keeps the ids it was given."""
    with aws.acting_as("InventoryFunction"):
        products = ProductRepository(Cloud.from_env())
        in_alert = []
        for i in range(1, 301):
            fields = parse_product(
                {
                    "sku": f"C-{i}",
                    "nombre": "n",
                    "precioUnitario": Decimal(1),
                    "stockActual": 0 if i % 100 == 0 else 5,
                    "umbralMinimo": 1,
                }
            )
            created = product(products.next_id(), fields)
            products.add(created)
            if i % 100 == 0:
                in_alert.append(created.id)
    return in_alert


def test_a_page_of_fifty_reads_its_shards_keys_then_fifty_items(api, catalog):
    # Each of the 16 shards of byShard gives a little more than its share of keys (a
    # Query of a few dozen bytes: half a unit), then the 50 items are read by key.
    path = "/api/inventario?limit=50"
    for _ in range(2):  # the first page, and the one after it
        with metered() as meter:
            response = api.get(path)
        assert len(body(response)) == 50
        assert dict(meter.operations) == {"Query": LIST_SHARDS, "BatchGetItem": 1}
        assert meter.items_read <= 50 + 2 * LIST_SHARDS + 50
        assert meter.read_units == LIST_SHARDS * 0.5 + 50
        path = f"/api/inventario?limit=50&nextToken={response.headers['X-Next-Token']}"


def test_alerts_read_the_alerts_only(api, catalog):
    with metered() as meter:
        alerts = body(api.get("/api/inventario/alertas"))
    assert [p["id"] for p in alerts] == catalog
    # One query a shard; only the shards holding an alert read an item.
    assert meter.items_read == 3 and dict(meter.operations) == {"Query": ALERT_SHARDS}
