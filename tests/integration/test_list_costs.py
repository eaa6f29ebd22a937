"""What a list costs in DynamoDB reads (docs/api.md#lists): a page follows its items, not
the table. Counted from botocore's events on the process's DynamoDB client."""

from decimal import Decimal

import pytest

from common import aws
from common.settings import Settings
from inventory.repository import ProductRepository
from inventory.rules import parse_product, product
from tests.support.api import body
from tests.support.metering import metered


@pytest.fixture
def catalog(tables):
    """300 products, 3 of them in alert (ids 100, 200, 300)."""
    with aws.acting_as("InventoryFunction"):
        products = ProductRepository(Settings.from_env())
        for i in range(1, 301):
            fields = parse_product({"sku": f"C-{i}", "nombre": "n",
                                    "precioUnitario": Decimal(1),
                                    "stockActual": 0 if i % 100 == 0 else 5,
                                    "umbralMinimo": 1})
            products.add(product(products.next_id(), fields))
    return products


def test_a_page_of_fifty_reads_fifty_keys_and_the_counter(api, catalog):
    with metered() as meter:
        response = api.get("/api/inventario?limit=50")
    assert len(body(response)) == 50
    assert meter.items_read == 51 and "Scan" not in meter.operations
    token = response.headers["X-Next-Token"]
    with metered() as meter:
        assert len(body(api.get(f"/api/inventario?limit=50&nextToken={token}"))) == 50
    assert meter.items_read == 51


def test_alerts_read_the_alerts_only(api, catalog):
    with metered() as meter:
        alerts = body(api.get("/api/inventario/alertas"))
    assert [p["id"] for p in alerts] == [100, 200, 300]
    assert meter.items_read <= 3 and dict(meter.operations) == {"Query": 1}
