"""The answers random fuzzing seldom reaches, brought about on purpose and held to
docs/openapi.yaml by the same checks: a replay, a reused key, a key still in progress,
the breaker open, a refused transition, a page with a next one, a body too large, a
missing token, a delete, the notification service's answers, the webhooks' answers.

Each request is sent as a client would send it; the answer is then checked against the
document's operation for status, Content-Type, headers and body.
"""

import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.support.described import CHECKS, load
from tests.support.hung import HungServer
from tests.support.stack_process import StackProcess
from tests.support.tokens import unregistered_user_id

schema = load()
PRODUCT = {"nombre": "Caja", "precioUnitario": 19.99, "stockActual": 100, "umbralMinimo": 0}
ORDER = {
    "userId": unregistered_user_id(),  # the stack is shared with files that register
    "userEmail": "ana@example.com",
    "clienteNombre": "Ana",
    "total": 10,
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "cantidad": 1,
}
SHIPMENT = {"pedidoId": 1, "tipoEnvio": "TERRESTRE", "transportista": "Olva", "destino": "Lima"}


def documented(method: str, path: str, response: requests.Response, status: int, **path_parameters):
    """Assert the answer is `status` and what the document says that answer is."""
    assert response.status_code == status, response.text
    case = schema[path][method].Case(path_parameters=path_parameters)
    case.validate_response(response, checks=CHECKS)
    return response


def send(stack, method: str, path: str, *, token: str | None = None, **kw):
    headers = kw.pop("headers", {})
    if token:
        headers["Authorization"] = f"Bearer {token}"
    base = stack.notifications if path.startswith("/notificaciones") else stack.gateway
    return requests.request(method, base + path, headers=headers, timeout=30, **kw)


@pytest.fixture(scope="module")
def made(stack):
    """A product with stock and an order of it, on the shared stack."""
    product = send(
        stack,
        "POST",
        "/api/inventario",
        token=stack.token,
        json={**PRODUCT, "sku": f"DOC-{uuid.uuid4()}"},
    ).json()
    order = send(
        stack,
        "POST",
        "/api/pedidos",
        token=stack.token,
        json={**ORDER, "productoId": product["id"]},
    ).json()
    return product, order


def test_a_replay_and_a_reused_key(stack):
    key = {"Idempotency-Key": f"doc-{uuid.uuid4()}"}
    for _ in range(2):
        answer = documented(
            "POST",
            "/api/envios",
            send(stack, "POST", "/api/envios", token=stack.token, headers=dict(key), json=SHIPMENT),
            201,
        )
    assert answer.headers["Idempotent-Replayed"] == "true"
    documented(
        "POST",
        "/api/envios",
        send(
            stack,
            "POST",
            "/api/envios",
            token=stack.token,
            headers=dict(key),
            json={**SHIPMENT, "destino": "Cusco"},
        ),
        422,
    )


def test_a_refused_transition(stack, made):
    _, order = made
    documented(
        "PATCH",
        "/api/pedidos/{id}/status",
        send(
            stack,
            "PATCH",
            f"/api/pedidos/{order['id']}/status",
            token=stack.token,
            params={"status": "ENTREGADO"},
        ),
        409,
        id=order["id"],
    )


def test_a_page_with_a_next_one(stack, made):
    product, _ = made
    send(
        stack,
        "POST",
        "/api/pedidos",
        token=stack.token,
        json={**ORDER, "productoId": product["id"]},
    )
    page = documented(
        "GET",
        "/api/pedidos",
        send(stack, "GET", "/api/pedidos", token=stack.token, params={"limit": 1}),
        200,
    )
    assert page.headers["X-Next-Token"] and page.headers["Link"]


def test_a_body_too_large(stack):
    too_large = json.dumps({**PRODUCT, "sku": "x", "descripcion": "x" * (1024 * 1024)})
    documented(
        "POST",
        "/api/inventario",
        send(stack, "POST", "/api/inventario", token=stack.token, data=too_large),
        413,
    )


def test_no_token(stack):
    documented("GET", "/api/inventario", send(stack, "GET", "/api/inventario"), 401)


def test_a_delete(stack):
    product = send(
        stack,
        "POST",
        "/api/inventario",
        token=stack.token,
        json={**PRODUCT, "sku": f"DEL-{uuid.uuid4()}"},
    ).json()
    documented(
        "DELETE",
        "/api/inventario/{id}",
        send(stack, "DELETE", f"/api/inventario/{product['id']}", token=stack.token),
        204,
        id=product["id"],
    )


def test_the_notification_services_answers(stack):
    documented(
        "POST",
        "/notificaciones",
        send(stack, "POST", "/notificaciones", json={"type": "LOW_STOCK_ALERT"}),
        200,
    )
    documented(
        "POST", "/notificaciones", send(stack, "POST", "/notificaciones", data="{not json"), 400
    )
    documented("GET", "/notificaciones/health", send(stack, "GET", "/notificaciones/health"), 200)


# -- an inventory that never answers: a key in progress, then the breaker open -----------


@pytest.fixture(scope="module")
def hung_inventory():
    """A stack whose stock check goes to a server that accepts and never answers; the
    first failure (its 2 s timeout) opens the breaker."""
    hung = HungServer()
    stack = StackProcess(
        {
            "INVENTORY_SERVICE_URL": hung.url,
            "STOCK_CHECK_TIMEOUT_SECONDS": "2",
            "BREAKER_FAIL_MAX": "1",
            "BREAKER_RESET_SECONDS": "60",
        }
    ).start()
    yield stack, hung.accepted
    stack.stop()
    hung.close()


def test_a_key_in_progress_and_then_the_breaker_open(hung_inventory):
    stack, accepted = hung_inventory
    key = {"Idempotency-Key": f"doc-{uuid.uuid4()}"}
    order = {**ORDER, "productoId": 1}
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(
            send, stack, "POST", "/api/pedidos", token=stack.token, headers=dict(key), json=order
        )
        # The key is claimed before the stock check starts, and the check is under way
        # once the inventory has accepted its connection.
        deadline = time.monotonic() + 30
        while not accepted and time.monotonic() < deadline and not first.done():
            time.sleep(0.01)
        busy = documented(
            "POST",
            "/api/pedidos",
            send(stack, "POST", "/api/pedidos", token=stack.token, headers=dict(key), json=order),
            409,
        )
        assert busy.headers["Retry-After"] == "1"
        tripped = documented("POST", "/api/pedidos", first.result(), 503)
    assert int(tripped.headers["Retry-After"]) >= 1
    documented(
        "POST",
        "/api/pedidos",
        send(stack, "POST", "/api/pedidos", token=stack.token, json=order),
        503,
    )


def test_the_webhooks_answers(stack, made):
    """An endpoint made, read, its secret rotated, its attempts in pages, an event sent
    again, an unknown one, and the endpoint deleted: each answer as documented."""
    from tests.support.webhook_receiver import Receiver

    product, _ = made
    receiver = Receiver()
    try:
        body = {"url": receiver.url, "eventos": ["pedido.creado"]}
        hook = documented(
            "POST",
            "/api/webhooks",
            send(stack, "POST", "/api/webhooks", token=stack.token, json=body),
            201,
        ).json()
        path = f"/api/webhooks/{hook['id']}"
        documented(
            "GET",
            "/api/webhooks/{id}",
            send(stack, "GET", path, token=stack.token),
            200,
            id=hook["id"],
        )
        documented(
            "POST",
            "/api/webhooks/{id}/secreto",
            send(stack, "POST", path + "/secreto", token=stack.token),
            200,
            id=hook["id"],
        )
        for _ in range(2):
            send(
                stack,
                "POST",
                "/api/pedidos",
                token=stack.token,
                json={**ORDER, "productoId": product["id"]},
            )
        first, _ = receiver.wait_for(2)
        deadline = time.monotonic() + 10
        while len(send(stack, "GET", path + "/entregas", token=stack.token).json()) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        page = documented(
            "GET",
            "/api/webhooks/{id}/entregas",
            send(stack, "GET", path + "/entregas", token=stack.token, params={"limit": 1}),
            200,
            id=hook["id"],
        )
        assert page.headers["X-Next-Token"] and page.headers["Link"]
        resend = "/api/webhooks/{id}/entregas/{eventId}/reenviar"
        for event_id, status in ((first.id, 202), ("evt_" + "0" * 32, 404)):
            answer = send(stack, "POST", f"{path}/entregas/{event_id}/reenviar", token=stack.token)
            documented("POST", resend, answer, status, id=hook["id"], eventId=event_id)
        documented(
            "DELETE",
            "/api/webhooks/{id}",
            send(stack, "DELETE", path, token=stack.token),
            204,
            id=hook["id"],
        )
        documented(
            "GET",
            "/api/webhooks/{id}",
            send(stack, "GET", path, token=stack.token),
            404,
            id=hook["id"],
        )
    finally:
        receiver.stop()
