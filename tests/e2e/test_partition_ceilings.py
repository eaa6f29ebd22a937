"""A burst of order creates from several clients, against the local stack with
DynamoDB's per-partition ceiling emulated (DYNAMODB_PARTITION_WRITE_RATE,
docs/capacity.md): every order is placed, and no partition key of any table or index is
ever refused, at a ceiling that a key written once per create would pass."""

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from infra.local.partition_writes import PARTITION_WRITES_PATH
from tests.support.stack_client import token
from tests.support.stack_process import StackClient, StackProcess

# A key may take BURST writes at once and RATE a second after that.
RATE, BURST = 2, 60
ORDERS, CLIENTS, CUSTOMERS = 240, 8, 48


@pytest.fixture(scope="module")
def throttled():
    stack = StackProcess({"DYNAMODB_PARTITION_WRITE_RATE": str(RATE),
                          "DYNAMODB_PARTITION_WRITE_BURST": str(BURST)}).start()
    yield stack, StackClient(stack, token())
    stack.stop()


def report(stack: StackProcess) -> dict:
    return requests.get(f"{stack.dynamodb}{PARTITION_WRITES_PATH}?top=5", timeout=10).json()


def test_a_burst_of_orders_keeps_every_partition_key_under_its_ceiling(throttled):
    stack, http = throttled
    assert "a key written over 2 a second is throttled" in stack.output()
    product = http.gateway("POST", "/api/inventario", json={
        "sku": "BURST-1", "nombre": "Caja", "precioUnitario": 1, "stockActual": 10**6,
        "umbralMinimo": 0}).json()
    requests.delete(stack.dynamodb + PARTITION_WRITES_PATH, timeout=10)

    def place(n: int) -> int:
        return http.gateway("POST", "/api/pedidos", json={
            "userId": n % CUSTOMERS + 1, "userEmail": "c@example.com",
            "clienteNombre": "Cliente", "total": 1, "tipoPedido": "NACIONAL",
            "destino": "Lima", "productoId": product["id"], "cantidad": 1}).status_code

    started = time.monotonic()
    with ThreadPoolExecutor(CLIENTS) as pool:
        statuses = list(pool.map(place, range(ORDERS)))
    elapsed = time.monotonic() - started
    assert statuses == [201] * ORDERS
    # The events' listener and the outbox finish after the answers: let them land.
    time.sleep(2)
    counted = report(stack)
    assert counted["throttled"] == 0
    allowance = BURST + RATE * (time.monotonic() - started)
    assert counted["hottest"][0]["writes"] <= allowance
    # The ceiling means something: a key written once per create (the counter, before
    # ids came in blocks) would have passed it.
    assert BURST + RATE * elapsed < ORDERS
