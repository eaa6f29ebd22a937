"""Black-box: the real local stack (`python -m infra.dev`, as `make run`) over HTTP."""

import signal
import socket
from concurrent.futures import ThreadPoolExecutor

from tests.support.stack_process import StackProcess

PRODUCT = {
    "sku": "BB-1",
    "nombre": "Pallet",
    "precioUnitario": 120.5,
    "stockActual": 4,
    "umbralMinimo": 5,
    "bodega": "Norte",
    "descripcion": None,
}


def test_inventory_end_to_end(http):
    created = http.gateway("POST", "/api/inventario", json=PRODUCT)
    assert created.status_code == 201
    product = created.json()
    pid = product["id"]
    assert product == {**PRODUCT, "id": pid, "stockReservado": 0, "stockDisponible": 4}

    assert product in http.gateway("GET", "/api/inventario").json()
    assert http.gateway("GET", f"/api/inventario/{pid}").json() == product
    assert product in http.gateway("GET", "/api/inventario/alertas").json()

    stock = http.gateway("GET", f"/api/inventario/{pid}/stock", params={"cantidad": 4})
    assert stock.status_code == 200 and stock.json() is True
    assert http.gateway("GET", f"/api/inventario/{pid}/stock?cantidad=5").json() is False
    assert http.gateway("GET", f"/api/inventario/{pid}/stock?cantidad=x").status_code == 400

    replaced = http.gateway("PUT", f"/api/inventario/{pid}", json={**PRODUCT, "stockActual": 50})
    assert replaced.status_code == 200 and replaced.json()["stockActual"] == 50
    alerts = http.gateway("GET", "/api/inventario/alertas").json()
    assert pid not in [p["id"] for p in alerts]

    invalid = http.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": " "})
    assert invalid.status_code == 400
    assert invalid.json()["error"] == "VALIDATION_ERROR"
    assert invalid.headers["Content-Type"].startswith("application/json")

    deleted = http.gateway("DELETE", f"/api/inventario/{pid}")
    assert deleted.status_code == 204 and deleted.content == b""
    assert http.gateway("GET", f"/api/inventario/{pid}").status_code == 404
    assert http.gateway("GET", "/api/inventario/abc").status_code == 400
    too_big = http.gateway("POST", "/api/inventario", data=b"{" + b" " * (1024 * 1024) + b"}")
    assert too_big.status_code == 413


def test_eight_concurrent_creates_of_one_sku_make_exactly_one_product(http):
    product = {**PRODUCT, "sku": "RACE-1"}
    with ThreadPoolExecutor(8) as pool:
        responses = list(
            pool.map(lambda _: http.gateway("POST", "/api/inventario", json=product), range(8))
        )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [400] * 7
    assert {r.json()["error"] for r in responses if r.status_code == 400} == {"DUPLICATE_SKU"}
    skus = [p["sku"] for p in http.gateway("GET", "/api/inventario").json()]
    assert skus.count("RACE-1") == 1


def test_every_gateway_route_needs_a_valid_token(http):
    for method, path in [
        ("GET", "/api/inventario"),
        ("POST", "/api/inventario"),
        ("GET", "/api/inventario/1"),
        ("PUT", "/api/inventario/1"),
        ("DELETE", "/api/inventario/1"),
        ("GET", "/api/inventario/alertas"),
        ("GET", "/api/inventario/1/stock?cantidad=1"),
    ]:
        missing = http.gateway(method, path, auth=False)
        assert (missing.status_code, missing.json()) == (401, {"message": "Unauthorized"}), path
        wrong = http.gateway(method, path, headers={"Authorization": "Bearer a.b.c"})
        assert (wrong.status_code, wrong.json()) == (401, {"message": "Unauthorized"}), path


def test_notification_service_is_open_and_logs_each_payload(http, stack):
    response = http.notify("POST", "/notificaciones", data='{"type":"LOW_STOCK_ALERT","n":1}')
    assert response.status_code == 200
    assert response.text == "Notificación procesada"
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    stack.wait_for_line(lambda line: '"payload":{"type":"LOW_STOCK_ALERT","n":1}' in line)
    assert http.notify("POST", "/notificaciones", data="[]").status_code == 400
    health = http.notify("GET", "/notificaciones/health")
    assert (health.status_code, health.text) == (200, "notification-service UP")


def test_cors_preflight_is_answered(http):
    response = http.gateway(
        "OPTIONS",
        "/api/inventario",
        auth=False,
        headers={
            "Origin": "http://example.com",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "idempotency-key",
        },
    )
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    allowed = {
        header.strip().lower()
        for header in response.headers["Access-Control-Allow-Headers"].split(",")
    }
    assert "idempotency-key" in allowed  # a browser may send one with its POST


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_ports_come_from_the_environment_and_sigterm_stops_everything():
    gateway_port, notification_port = _free_port(), _free_port()
    stack = StackProcess(
        {"GATEWAY_PORT": str(gateway_port), "NOTIFICATION_PORT": str(notification_port)}
    ).start()
    try:
        assert stack.gateway == f"http://127.0.0.1:{gateway_port}"
        assert stack.notifications == f"http://127.0.0.1:{notification_port}"
    finally:
        stack.proc.send_signal(signal.SIGTERM)
        assert stack.proc.wait(timeout=120) == 0  # a hang detector: a stop takes seconds
    assert "Stopped." in stack.output()
    for port in (gateway_port, notification_port):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))  # free again: nothing was left running
