"""Black-box: orders on the real local stack, the event reaching the notification log, and
the breaker against a closed port."""

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.hung import HungServer
from tests.support.stack_client import token
from tests.support.stack_process import StackClient, StackProcess
from tests.support.tokens import unregistered_user_id

ORDER = {
    "userId": unregistered_user_id(),  # the stack is shared with files that register
    "userEmail": "luis@example.com",
    "clienteNombre": "Luis",
    "total": 120.40,
    "tipoPedido": "INTERNACIONAL",
    "destino": "Quito",
    "cantidad": 2,
}


def stocked_product(http, sku: str, stock: int = 100) -> int:
    response = http.gateway(
        "POST",
        "/api/inventario",
        json={
            "sku": sku,
            "nombre": "Caja",
            "precioUnitario": 60.2,
            "stockActual": stock,
            "umbralMinimo": 1,
        },
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


def test_an_order_is_created_and_its_event_reaches_the_notification_log(http, stack):
    product_id = stocked_product(http, "ORD-1", stock=2)
    response = http.gateway("POST", "/api/pedidos", json={**ORDER, "productoId": product_id})
    assert response.status_code == 201, response.text
    order = response.json()
    assert order["status"] == "PENDIENTE"
    assert order["observaciones"] == "Pedido internacional — requiere documentación aduanera"
    # The notification service gets the event whole and logs it without the person's
    # email: no log line holds personal data (docs/personal-data.md).
    expected = {
        "pedidoId": order["id"],
        "userEmail": "[redacted]",
        "total": 120.4,
        "tipoPedido": "INTERNACIONAL",
    }

    def notification_of_this_order(line):
        if '"notification received"' not in line:
            return False
        return json.loads(line)["payload"] == expected

    stack.wait_for_line(notification_of_this_order)
    assert http.gateway("GET", f"/api/pedidos/{order['id']}").json() == order
    assert order in http.gateway("GET", "/api/pedidos").json()

    too_many = http.gateway(
        "POST", "/api/pedidos", json={**ORDER, "productoId": product_id, "cantidad": 3}
    )
    assert (too_many.status_code, too_many.json()["error"]) == (400, "INSUFFICIENT_STOCK")
    unknown = http.gateway("POST", "/api/pedidos", json={**ORDER, "productoId": 999999})
    assert (unknown.status_code, unknown.json()["error"]) == (400, "PRODUCT_NOT_FOUND")
    assert http.gateway("GET", "/api/pedidos/999999").status_code == 404
    # A forged Host header cannot send the stock check (and the token) elsewhere.
    forged = http.gateway(
        "POST",
        "/api/pedidos",
        headers={"Host": "127.0.0.1:1"},
        json={**ORDER, "productoId": 999999},
    )
    assert (forged.status_code, forged.json()["error"]) == (400, "PRODUCT_NOT_FOUND")
    assert http.gateway("POST", "/api/pedidos", auth=False, json=ORDER).status_code == 401


def test_sixteen_parallel_creates_get_sixteen_distinct_ids(http):
    product_id = stocked_product(http, "ORD-PAR")
    names = [f"Cliente {i}" for i in range(16)]
    with ThreadPoolExecutor(16) as pool:
        responses = list(
            pool.map(
                lambda name: http.gateway(
                    "POST",
                    "/api/pedidos",
                    json={**ORDER, "productoId": product_id, "cantidad": 1, "clienteNombre": name},
                ),
                names,
            )
        )
    assert [r.status_code for r in responses] == [201] * 16
    assert [r.json()["clienteNombre"] for r in responses] == names
    assert len({r.json()["id"] for r in responses}) == 16


@pytest.fixture(scope="module")
def broken_inventory():
    """A stack whose stock check goes to an inventory that never answers (1 s timeout),
    and that inventory: what it was asked shows whether the breaker let a call through."""
    hung = HungServer()
    stack = StackProcess(
        {
            "INVENTORY_SERVICE_URL": hung.url,
            "BREAKER_FAIL_MAX": "3",
            "BREAKER_RESET_SECONDS": "2",
            "STOCK_CHECK_TIMEOUT_SECONDS": "1",
        }
    )
    stack.start()
    yield StackClient(stack, token()), hung
    stack.stop()
    hung.close()


def test_the_breaker_opens_on_an_inventory_that_hangs_and_then_answers_at_once(broken_inventory):
    http, inventory = broken_inventory
    order = {**ORDER, "productoId": 1}
    statuses = [http.gateway("POST", "/api/pedidos", json=order).status_code for _ in range(3)]
    assert statuses[:2] == [400, 400] and statuses[2] == 503
    asked = len(inventory.accepted)

    # Open: refused at once, without asking the inventory (and so without its timeout).
    for _ in range(5):
        refused = http.gateway("POST", "/api/pedidos", json=order)
        assert (refused.status_code, refused.json()["error"]) == (503, "INVENTORY_UNAVAILABLE")
        assert int(refused.headers["Retry-After"]) >= 1
    assert len(inventory.accepted) == asked

    # Everything else behind the gateway is unaffected.
    assert http.gateway("GET", "/api/inventario").status_code == 200
    assert http.gateway("GET", "/api/envios").status_code == 200
    assert http.gateway("GET", "/api/pedidos").json() == []

    time.sleep(2.1)  # the reset time: one trial call goes out, fails, and opens it again
    trial = http.gateway("POST", "/api/pedidos", json=order)
    assert trial.status_code == 503
    assert len(inventory.accepted) > asked  # the trial asked
    asked = len(inventory.accepted)
    assert http.gateway("POST", "/api/pedidos", json=order).status_code == 503
    assert len(inventory.accepted) == asked  # open again: not asked
    assert http.gateway("GET", "/api/pedidos").json() == []
