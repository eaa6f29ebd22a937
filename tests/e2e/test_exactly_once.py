"""Exactly-once creation (docs/api.md#retries-without-duplicates-idempotency-key)
and the order lifecycle (docs/api.md#the-order-lifecycle), over HTTP against the
real local stack."""

import json
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support import raw_http
from tests.support.hung import HungServer
from tests.support.stack_client import token
from tests.support.stack_process import StackClient, StackProcess
from tests.support.tokens import make_token, unregistered_user_id

PRODUCT = {"nombre": "Caja", "precioUnitario": 19.99, "stockActual": 1000, "umbralMinimo": 1}
SHIPMENT = {"pedidoId": 77, "tipoEnvio": "TERRESTRE", "transportista": "DHL", "destino": "Lima"}
ORDER = {
    "userId": unregistered_user_id(),  # the stack is shared with files that register
    "userEmail": "a@b.co",
    "total": 19.99,
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "cantidad": 1,
}


def key() -> str:
    return f"k-{uuid.uuid4()}"


def product(http, sku: str) -> dict:
    response = http.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": sku})
    assert response.status_code == 201, response.text
    return response.json()


def post(http, path: str, body, idempotency_key: str | None, **kw):
    headers = kw.pop("headers", {})
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return http.gateway(
        "POST", path, data=data, headers={"Content-Type": "application/json", **headers}, **kw
    )


def all_items(http, path: str) -> list[dict]:
    return http.gateway("GET", path).json()


def notifications_of(stack, pedido_id: int) -> int:
    return sum(
        1
        for line in stack.output().splitlines()
        if '"notification received"' in line and f'"pedidoId":{pedido_id},' in line
    )


# -- replay ------------------------------------------------------------------------------------


def test_a_repeated_order_is_replayed_exactly_and_nothing_happens_twice(http, stack):
    stock = product(http, f"ONCE-{uuid.uuid4()}")
    body = {**ORDER, "clienteNombre": f"Once {uuid.uuid4()}", "productoId": stock["id"]}
    k = key()
    first = post(http, "/api/pedidos", body, k)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    stack.wait_for_line(
        lambda line: (
            '"notification received"' in line and f'"pedidoId":{first.json()["id"]},' in line
        )
    )
    # The same JSON, keys in another order and other whitespace.
    reordered = json.dumps(dict(reversed(list(body.items()))), indent=3)
    again = post(http, "/api/pedidos", reordered, k)
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.content == first.content and b'"total":19.99,' in again.content
    placed = [
        o for o in all_items(http, "/api/pedidos") if o["clienteNombre"] == body["clienteNombre"]
    ]
    assert len(placed) == 1
    time.sleep(0.5)
    assert notifications_of(stack, first.json()["id"]) == 1


@pytest.mark.parametrize(
    "path, body", [("/api/inventario", {**PRODUCT, "sku": "REPLAY-P"}), ("/api/envios", SHIPMENT)]
)
def test_products_and_shipments_are_created_once_per_key(http, path, body):
    k = key()
    body = {**body, "sku": f"REPLAY-{uuid.uuid4()}"} if "sku" in body else body
    first, again = post(http, path, body, k), post(http, path, body, k)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert [i["id"] for i in all_items(http, path)].count(first.json()["id"]) == 1


def test_the_same_key_with_another_body_is_422(http):
    k = key()
    sku = f"REUSE-{uuid.uuid4()}"
    assert post(http, "/api/inventario", {**PRODUCT, "sku": sku}, k).status_code == 201
    other = post(http, "/api/inventario", {**PRODUCT, "sku": sku + "-2"}, k)
    assert other.status_code == 422
    assert other.json()["error"] == "IDEMPOTENCY_KEY_REUSED"
    assert sku + "-2" not in [p["sku"] for p in all_items(http, "/api/inventario")]


# -- scope -------------------------------------------------------------------------------------


def test_a_key_is_scoped_to_the_caller(http):
    k = key()
    ana = make_token(sub="ana@example.com", exp=int(time.time()) + 600)
    luis = make_token(sub="luis@example.com", exp=int(time.time()) + 600)
    first = post(http, "/api/envios", SHIPMENT, k, headers={"Authorization": f"Bearer {ana}"})
    second = post(http, "/api/envios", SHIPMENT, k, headers={"Authorization": f"Bearer {luis}"})
    assert (first.status_code, second.status_code) == (201, 201)
    assert "Idempotent-Replayed" not in second.headers
    assert first.json()["id"] != second.json()["id"]


def test_a_key_is_scoped_to_the_route(http):
    k = key()
    made = post(http, "/api/inventario", {**PRODUCT, "sku": f"ROUTE-{uuid.uuid4()}"}, k)
    shipped = post(http, "/api/envios", SHIPMENT, k)
    assert (made.status_code, shipped.status_code) == (201, 201)
    assert "Idempotent-Replayed" not in shipped.headers


# -- bad keys ----------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["", "a b", "x" * 256, "tab\there"])
def test_a_key_that_is_not_1_to_255_visible_ascii_characters_is_400(http, bad):
    response = post(http, "/api/envios", SHIPMENT, bad)
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"
    assert [d["field"] for d in response.json()["details"]] == ["Idempotency-Key"]


def test_a_key_with_bytes_outside_ascii_is_400(http, stack):
    body = json.dumps(SHIPMENT).encode()
    raw = (
        b"POST /api/envios HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        + f"Authorization: Bearer {http.bearer}\r\nContent-Length: {len(body)}\r\n".encode()
        + b"Idempotency-Key: cl\xc3\xa9\r\n\r\n"
        + body
    )
    received = raw_http.exchange(stack.gateway, raw)
    assert raw_http.statuses(received) == [400]
    assert json.loads(raw_http.body_of(received))["details"][0]["field"] == "Idempotency-Key"


def test_the_longest_key_is_fine(http):
    assert post(http, "/api/envios", SHIPMENT, "~" * 255).status_code == 201


# -- only successes are remembered ---------------------------------------------------------------


def test_a_failure_is_not_remembered_and_a_retry_is_processed_afresh(http):
    k = key()
    sku = f"FAIL-{uuid.uuid4()}"
    invalid = post(http, "/api/inventario", {**PRODUCT, "sku": sku, "stockActual": -1}, k)
    assert invalid.status_code == 400
    fixed = post(http, "/api/inventario", {**PRODUCT, "sku": sku}, k)
    assert fixed.status_code == 201 and "Idempotent-Replayed" not in fixed.headers
    duplicate = post(http, "/api/inventario", {**PRODUCT, "sku": sku}, key())
    assert duplicate.status_code == 400 and duplicate.json()["error"] == "DUPLICATE_SKU"


def test_twelve_concurrent_requests_with_one_key_create_exactly_one_order(http):
    stock = product(http, f"RACE-{uuid.uuid4()}")
    body = {**ORDER, "clienteNombre": f"Race {uuid.uuid4()}", "productoId": stock["id"]}
    k = key()
    start = threading.Barrier(12)

    def send(_):
        start.wait()
        return post(http, "/api/pedidos", body, k)

    with ThreadPoolExecutor(12) as pool:
        responses = list(pool.map(send, range(12)))
    assert {r.status_code for r in responses} <= {201, 409}
    created = [r for r in responses if r.status_code == 201]
    assert created and len({r.content for r in created}) == 1
    for busy in (r for r in responses if r.status_code == 409):
        assert busy.json()["error"] == "IDEMPOTENCY_IN_PROGRESS"
        assert busy.headers["Retry-After"] == "1"
    placed = [
        o for o in all_items(http, "/api/pedidos") if o["clienteNombre"] == body["clienteNombre"]
    ]
    assert len(placed) == 1


@pytest.fixture(scope="module")
def slow_inventory():
    """A stack whose stock check waits on an inventory that never answers (2 s timeout)."""
    hung = HungServer()
    stack = StackProcess(
        {
            "INVENTORY_SERVICE_URL": hung.url,
            "STOCK_CHECK_TIMEOUT_SECONDS": "2",
        }
    ).start()
    yield StackClient(stack, token())
    stack.stop()
    hung.close()


def test_a_repeat_while_the_first_is_processed_is_409_retry_after_1(slow_inventory):
    http = slow_inventory
    body = {**ORDER, "clienteNombre": "Slow", "productoId": 1}
    k = key()
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(post, http, "/api/pedidos", body, k)
        time.sleep(0.5)  # the first is waiting on the stock check
        busy = post(http, "/api/pedidos", {**body, "destino": "any body at all"}, k)
        assert busy.status_code == 409
        assert busy.json()["error"] == "IDEMPOTENCY_IN_PROGRESS"
        assert busy.headers["Retry-After"] == "1"
        # The first fails (the stock is not confirmed): nothing is remembered.
        assert first.result().status_code == 400
    again = post(http, "/api/pedidos", body, k)
    assert again.status_code == 400 and again.json()["error"] == "STOCK_NOT_CONFIRMED"


# -- the order lifecycle -------------------------------------------------------------------------

ALLOWED = {
    "PENDIENTE": {"APROBADO", "CANCELADO"},
    "APROBADO": {"EN_ENVIO", "CANCELADO"},
    "EN_ENVIO": {"ENTREGADO"},
    "ENTREGADO": set(),
    "CANCELADO": set(),
}
PATHS = {
    "PENDIENTE": [],
    "APROBADO": ["APROBADO"],
    "EN_ENVIO": ["APROBADO", "EN_ENVIO"],
    "ENTREGADO": ["APROBADO", "EN_ENVIO", "ENTREGADO"],
    "CANCELADO": ["CANCELADO"],
}


@pytest.fixture(scope="module")
def stocked(http):
    return product(http, f"LIFE-{uuid.uuid4()}")


def pending_order(http, stocked, name: str = "Life") -> dict:
    response = http.gateway(
        "POST", "/api/pedidos", json={**ORDER, "clienteNombre": name, "productoId": stocked["id"]}
    )
    assert response.status_code == 201, response.text
    return response.json()


def move(http, order_id, status: str | None):
    params = {} if status is None else {"status": status}
    return http.gateway("PATCH", f"/api/pedidos/{order_id}/status", params=params)


def order_in(http, stocked, state: str) -> dict:
    order = pending_order(http, stocked)
    for step in PATHS[state]:
        assert move(http, order["id"], step).status_code == 200
    return http.gateway("GET", f"/api/pedidos/{order['id']}").json()


@pytest.mark.parametrize("current", list(ALLOWED))
@pytest.mark.parametrize("target", list(ALLOWED))
def test_every_move_between_every_two_states(http, stocked, current, target):
    order = order_in(http, stocked, current)
    assert order["status"] == current
    response = move(http, order["id"], target)
    after = http.gateway("GET", f"/api/pedidos/{order['id']}").json()
    if target in ALLOWED[current] or target == current:
        assert response.status_code == 200
        assert response.json() == after
        # Only the status moves, and the units its lines hold, send and deliver
        # (docs/api.md#orders-of-several-lines): what was sold stays.
        assert {**after, "lineas": None} == {**order, "status": target, "lineas": None}
        assert [_sold(line) for line in after["lineas"]] == [
            _sold(line) for line in order["lineas"]
        ]
    else:
        assert response.status_code == 409
        assert response.json()["error"] == "INVALID_TRANSITION"
        assert response.json()["details"] == [
            {"field": "status", "message": f"cannot move from {current} to {target}"}
        ]
        assert after == order


def _sold(line: dict) -> dict:
    """What a line sold, which no move changes."""
    moving = ("asignaciones", "cantidadEnviada", "cantidadEntregada", "cantidadDevuelta")
    return {key: value for key, value in line.items() if key not in moving}


@pytest.mark.parametrize("status", [None, "", "aprobado", "PERDIDO"])
def test_a_missing_or_unknown_status_is_400(http, stocked, status):
    order = pending_order(http, stocked)
    response = move(http, order["id"], status)
    assert response.status_code == 400 and response.json()["error"] == "VALIDATION_ERROR"
    assert [d["field"] for d in response.json()["details"]] == ["status"]


def test_unknown_and_non_numeric_ids(http):
    unknown = move(http, 987654321, "APROBADO")
    assert (unknown.status_code, unknown.json()["error"]) == (404, "ORDER_NOT_FOUND")
    bad = move(http, "abc", "APROBADO")
    assert (bad.status_code, bad.json()["error"]) == (400, "INVALID_ID")


def test_two_conflicting_moves_at_once_exactly_one_wins(http, stocked):
    for _ in range(20):
        order = order_in(http, stocked, "APROBADO")
        start = threading.Barrier(2)

        def send(target, order_id=order["id"], barrier=start):
            barrier.wait()
            return move(http, order_id, target)

        with ThreadPoolExecutor(2) as pool:
            shipped, cancelled = pool.map(send, ["EN_ENVIO", "CANCELADO"])
        assert sorted([shipped.status_code, cancelled.status_code]) == [200, 409]
        winner = shipped if shipped.status_code == 200 else cancelled
        final = http.gateway("GET", f"/api/pedidos/{order['id']}").json()
        assert final["status"] == winner.json()["status"]


def test_a_move_publishes_no_event_and_shows_in_the_status_list(http, stack, stocked):
    order = pending_order(http, stocked, name=f"NoEvent {uuid.uuid4()}")
    stack.wait_for_line(
        lambda line: f'"pedidoId":{order["id"]},' in line and '"notification received"' in line
    )
    for step in ("APROBADO", "EN_ENVIO"):
        assert move(http, order["id"], step).status_code == 200
    time.sleep(0.5)
    assert notifications_of(stack, order["id"]) == 1
    listed = http.gateway("GET", "/api/pedidos", params={"status": "EN_ENVIO"}).json()
    assert order["id"] in [o["id"] for o in listed]
    pending = http.gateway("GET", "/api/pedidos", params={"status": "PENDIENTE"}).json()
    assert order["id"] not in [o["id"] for o in pending]
