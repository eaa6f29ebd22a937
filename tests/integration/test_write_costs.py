"""What each write route costs in DynamoDB, held to its floor (bench/README.md).

Counted from botocore's events on the process's DynamoDB client, so it sees every call,
including the stock check's read by the inventory (served in this process). Two costs
paid per environment and per time are counted apart (tests.support.metering): the
counter's update, one per block of ids (common.storage.id_blocks), not per create; and the
breaker's shared state, read at most once a second, so inside a request or not
depending on how long the requests before it took.
"""

import pytest

from tests.support.api import body
from tests.support.metering import metered
from tests.support.samples import ORDER, PRODUCT, SHIPMENT

# route: (operations, write units, read units). The floor of each, and why:
FLOORS = {
    # the product and its sku claim, atomically (a transaction)
    "POST /api/inventario": ({"TransactWriteItems": 1}, 4, 0),
    # the sku unchanged: one update on the condition that the product has that sku and
    # every unit in PRINCIPAL, which it counts (an update, not a put: the units orders
    # hold are kept, and answered)
    "PUT /api/inventario/{id} (same sku)": ({"UpdateItem": 1}, 1, 0),
    # the sku moves: that update fails, and so does the one for a product whose units
    # are in several warehouses (a failed condition costs a write unit: the price of not
    # reading the product first on the common path), a read says from where, then
    # product + both claims, then the product as stored (a transaction answers nothing)
    "PUT /api/inventario/{id} (new sku)": (
        {"UpdateItem": 2, "GetItem": 2, "TransactWriteItems": 1},
        8,
        2,
    ),
    # the sku to free is read, then the product and its claim go together
    "DELETE /api/inventario/{id}": ({"GetItem": 1, "TransactWriteItems": 1}, 4, 1),
    # the stock check's read (in the inventory) + its userId's claim (common.identity.user_ids:
    # one update, before the save, so that no new account is given an order's userId)
    # + the order, saved with its event pending, + the event off that list once
    # published (the outbox: one write more, so that no failure after the save can lose
    # the event)
    "POST /api/pedidos": ({"GetItem": 1, "UpdateItem": 2, "PutItem": 1}, 3, 1),
    # an approval: the order read (which stock move it makes), its products read (the
    # inventory plans where each line's units come from: docs/architecture.md), the
    # reservation's line with its product's counters (a transaction of two, whatever
    # the warehouses), then one update on the condition that the status is still the
    # one read, its history entry and its lines in it
    "PATCH /api/pedidos/{id}/status": (
        {"GetItem": 1, "BatchGetItem": 1, "TransactWriteItems": 1, "UpdateItem": 1},
        5,
        2,
    ),
    # whose order it is (the orders service's read of the order, so that its customer
    # can follow it) + whether that customer was erased (their userId's claim: no
    # shipment is made for an erased person) + its tracking code's claim (a conditional
    # put: no code is two shipments') + the shipment
    "POST /api/envios": ({"GetItem": 2, "PutItem": 2}, 2, 2),
    # the shipment read (the one path of every change decides from it: shipping.service.move),
    # then one update on the condition that it is as read, its history entry in it
    "PATCH /api/envios/{id}/status": ({"GetItem": 1, "UpdateItem": 1}, 1, 1),
    # the same read, then the event and what it does in one transaction of two items
    # (whatever the shipment's history: tests/integration/test_tracking_routes.py)
    "POST /api/envios/{id}/eventos": ({"GetItem": 1, "TransactWriteItems": 1}, 4, 1),
    # with an Idempotency-Key: + the claim (a conditional put) + the stored result
    "POST /api/envios with an Idempotency-Key": (
        {"GetItem": 2, "UpdateItem": 1, "PutItem": 3},
        4,
        2,
    ),
    # a replay: the claim's put fails and hands back the stored record; then whether the
    # shipment's person was erased since (their userId's claim: its answer then leaves
    # their data out, docs/personal-data.md), and the shipment's personal fields as it
    # holds them now (the record keeps none)
    "POST /api/envios, replayed": ({"PutItem": 1, "GetItem": 2}, 1, 2),
}


@pytest.fixture
def measured(orders_api):
    api = orders_api
    product = body(api.post("/api/inventario", {**PRODUCT, "sku": "W-0"}))
    order = body(api.post("/api/pedidos", {**ORDER, "productoId": product["id"]}))
    shipment = body(api.post("/api/envios", SHIPMENT))
    other = body(api.post("/api/inventario", {**PRODUCT, "sku": "W-2"}))
    api.post("/api/envios", SHIPMENT, headers={"Idempotency-Key": "replayed-key"})
    calls = {
        "POST /api/inventario": lambda: api.post("/api/inventario", PRODUCT),
        "PUT /api/inventario/{id} (same sku)": lambda: api.put(
            f"/api/inventario/{product['id']}", {**PRODUCT, "sku": "W-0", "stockActual": 3}
        ),
        "PUT /api/inventario/{id} (new sku)": lambda: api.put(
            f"/api/inventario/{product['id']}", {**PRODUCT, "sku": "W-9"}
        ),
        "DELETE /api/inventario/{id}": lambda: api.delete(f"/api/inventario/{other['id']}"),
        "POST /api/pedidos": lambda: api.post(
            "/api/pedidos", {**ORDER, "productoId": product["id"]}
        ),
        "PATCH /api/pedidos/{id}/status": lambda: api.patch(
            f"/api/pedidos/{order['id']}/status?status=APROBADO"
        ),
        "POST /api/envios": lambda: api.post("/api/envios", SHIPMENT),
        "PATCH /api/envios/{id}/status": lambda: api.patch(
            f"/api/envios/{shipment['id']}/status?status=EN_RUTA"
        ),
        "POST /api/envios/{id}/eventos": lambda: api.post(
            f"/api/envios/{shipment['id']}/eventos", {"estado": "EN_REPARTO"}
        ),
        "POST /api/envios with an Idempotency-Key": lambda: api.post(
            "/api/envios", SHIPMENT, headers={"Idempotency-Key": "new-key"}
        ),
        "POST /api/envios, replayed": lambda: api.post(
            "/api/envios", SHIPMENT, headers={"Idempotency-Key": "replayed-key"}
        ),
    }
    found = {}
    for route, call in calls.items():
        with metered() as meter:
            response = call()
        assert response.status_code in (200, 201, 204), (route, response.body)
        found[route] = (dict(meter.operations), meter.write_units, meter.read_units)
    return found


def test_every_write_route_is_at_its_floor(measured):
    assert measured == FLOORS
