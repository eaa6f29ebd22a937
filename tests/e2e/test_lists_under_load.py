"""Whole lists on a stack holding thousands of items, with other requests meanwhile: no
request is a 5xx because of load, the calls one service makes to another do not queue
behind lists, and a list cut short by its time says where it goes on
(docs/api.md#lists)."""

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import boto3
import pytest
import requests

from inventory.repository import item_of as product_item
from inventory.rules import Product
from orders.repository import item_of as order_item
from orders.rules import Order
from tests.support.stack_process import PATIENT_STOCK_CHECK, StackProcess

# The size at which issue 53's E18 saw four whole lists at once make a shipment create
# 503 (issue 33's F3 had 3,001): 3,000 made this one test 7% of the suite's CPU.
ITEMS = 1200


def _write(client, table: str, items: list[dict]) -> None:
    for start in range(0, len(items), 25):
        batch = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
        client.batch_write_item(RequestItems={table: batch})


def _order(ident: int) -> dict:
    return order_item(
        Order(
            id=ident,
            user_id=1,
            user_email="b@example.com",
            cliente_nombre="Bench",
            total=Decimal("19.99"),
            status="PENDIENTE",
            tipo_pedido="NACIONAL",
            destino="Lima",
            observaciones=None,
            producto_id=1,
            cantidad=1,
            creado_en="2026-11-22T10:00:00.000000",
        )
    ).serialize()


def _product(ident: int) -> dict:
    return product_item(
        Product(
            id=ident,
            sku=f"L-{ident}",
            nombre="Caja",
            precio_unitario=Decimal("9.99"),
            stock_actual=50,
            umbral_minimo=5,
            bodega="Norte",
            descripcion=None,
        )
    ).serialize()


@pytest.fixture(scope="module")
def stack():
    """A stack of its own holding ITEMS orders and products written straight into its
    tables. Its calls between functions wait 10 s, not 2 (tests run in parallel on a busy
    machine): before, behind four whole lists, they waited longer still."""
    running = StackProcess(PATIENT_STOCK_CHECK).start()
    try:
        client = boto3.client("dynamodb", endpoint_url=running.dynamodb)
        _write(client, "OrdersTable", [_order(i) for i in range(1, ITEMS + 1)])
        _write(client, "ProductsTable", [_product(i) for i in range(1, ITEMS + 1)])
        # Their sku claims are not needed: nothing here writes these products' skus.
        for counter in ("orders", "products"):
            client.put_item(
                TableName="CountersTable",
                Item={"name": {"S": counter}, "value": {"N": str(ITEMS)}},
            )
        yield running
    finally:
        running.stop()


def _get(stack, path: str) -> requests.Response:
    headers = {"Authorization": f"Bearer {stack.token}"}
    return requests.get(stack.gateway + path, headers=headers, timeout=60)


def _post(stack, path: str, body: dict) -> requests.Response:
    headers = {"Authorization": f"Bearer {stack.token}"}
    return requests.post(stack.gateway + path, json=body, headers=headers, timeout=60)


def _why(stack) -> list[str]:
    """The gateway's and the functions' lines that say why a request failed (a 502 names
    the function and its error in the stack's log)."""
    return [
        line
        for line in stack.output().splitlines()
        if any(word in line for word in ("InternalServerError", "Traceback", "Error", "timed out"))
    ][-20:]


def _walk(stack, first: requests.Response, path: str) -> list[int]:
    """Every id of a list, from its first answer on through its tokens."""
    ids, answer = [], first
    while True:
        assert answer.status_code == 200, (answer.text[:300], _why(stack))
        ids += [item["id"] for item in answer.json()]
        token = answer.headers.get("X-Next-Token")
        if token is None:
            return ids
        answer = _get(stack, f"{path}?nextToken={token}")


def test_lists_at_once_leave_room_for_lookups_and_stock_checks(stack):
    shipment = {"pedidoId": 1, "tipoEnvio": "EXPRESS", "transportista": "DHL", "destino": "Lima"}
    order = {
        "userId": 1,
        "userEmail": "a@b.co",
        "clienteNombre": "A",
        "total": 1,
        "tipoPedido": "NACIONAL",
        "destino": "Lima",
        "productoId": 7,
        "cantidad": 1,
    }
    with ThreadPoolExecutor(12) as pool:
        lists = [pool.submit(_get, stack, path) for path in ["/api/pedidos"] * 4]
        catalogs = [pool.submit(_get, stack, "/api/inventario") for _ in range(4)]
        # Meanwhile: a shipment asks the orders service whose order it is; an order asks
        # the inventory for stock; a client reads one order.
        shipments = [pool.submit(_post, stack, "/api/envios", shipment) for _ in range(3)]
        orders = [pool.submit(_post, stack, "/api/pedidos", order) for _ in range(3)]
        one = pool.submit(_get, stack, "/api/pedidos/1")
        answers = {
            "shipments": [f.result().status_code for f in shipments],
            "orders": [f.result().status_code for f in orders],
            "one": one.result().status_code,
        }
        walked = {
            "/api/pedidos": [_walk(stack, f.result(), "/api/pedidos") for f in lists],
            "/api/inventario": [_walk(stack, f.result(), "/api/inventario") for f in catalogs],
        }
    assert answers == {"shipments": [201] * 3, "orders": [201] * 3, "one": 200}
    for path, walks in walked.items():
        for ids in walks:
            assert ids == sorted(set(ids)), path
            assert set(range(1, ITEMS + 1)) <= set(ids), path
