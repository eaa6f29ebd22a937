"""Black-box: what a new user meets in the first hour, without reading the code: where a
created thing is, what an empty answer says it is, what every not-found says, what a
mistake about the status parameter says, and what an order writes to the log."""

import json
import re

import pytest
import requests

from tests.support.stack_process import PATIENT_STOCK_CHECK, StackProcess
from tests.support.tokens import unregistered_user_id

PRODUCT = {"nombre": "Caja", "precioUnitario": 2, "stockActual": 50, "umbralMinimo": 1}
ORDER = {
    "userId": unregistered_user_id(),  # the stack is shared with files that register
    "userEmail": "ana@example.com",
    "clienteNombre": "Ana",
    "total": 2,
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "cantidad": 1,
}
SHIPMENT = {"tipoEnvio": "EXPRESS", "transportista": "Olva", "destino": "Lima"}


@pytest.fixture(scope="module")
def made(http):
    """A product, an order of it and a shipment of that order, as created (201s)."""
    product = http.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": "FIRST-HOUR"})
    order = http.gateway("POST", "/api/pedidos", json={**ORDER, "productoId": product.json()["id"]})
    shipment = http.gateway(
        "POST", "/api/envios", json={**SHIPMENT, "pedidoId": order.json()["id"]}
    )
    return {"inventario": product, "pedidos": order, "envios": shipment}


@pytest.mark.parametrize("resource", ["inventario", "pedidos", "envios"])
def test_every_201_says_in_location_where_the_created_thing_is(http, made, resource):
    created = made[resource]
    assert created.status_code == 201, created.text
    location = created.headers["Location"]
    assert location == f"{http.stack.gateway}/api/{resource}/{created.json()['id']}"
    # Location is a URL a client follows as it is.
    read = http.gateway("GET", location.removeprefix(http.stack.gateway))
    assert (read.status_code, read.json()) == (200, created.json())
    assert "Location" in created.headers["Access-Control-Expose-Headers"].split(",")


def test_a_replayed_201_carries_the_same_location(http):
    body, key = {**PRODUCT, "sku": "FIRST-HOUR-KEY"}, {"Idempotency-Key": "first-hour-1"}
    first = http.gateway("POST", "/api/inventario", json=body, headers=dict(key))
    again = http.gateway("POST", "/api/inventario", json=body, headers=dict(key))
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Location"] == first.headers["Location"]
    assert first.headers["Location"].endswith(f"/api/inventario/{first.json()['id']}")


def test_a_204_has_no_body_and_says_no_content_type(http):
    product = http.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": "FIRST-HOUR-DEL"})
    deleted = http.gateway("DELETE", f"/api/inventario/{product.json()['id']}")
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert "Content-Type" not in deleted.headers


@pytest.mark.parametrize(
    "resource, what", [("inventario", "Product"), ("pedidos", "Order"), ("envios", "Shipment")]
)
@pytest.mark.parametrize("ident", ["0", "99999", "-3", "9" * 45])
def test_one_not_found_message_shape_per_resource_whatever_the_id(http, resource, what, ident):
    answer = http.gateway("GET", f"/api/{resource}/{ident}")
    assert answer.status_code == 404
    shown = ident if len(ident) <= 20 else ident[:20] + "…"
    assert answer.json()["message"] == f"{what} {shown} not found"


@pytest.mark.parametrize("resource", ["pedidos", "envios"])
def test_a_status_sent_in_the_body_is_told_it_is_a_query_parameter(http, made, resource):
    ident = made[resource].json()["id"]
    answer = http.gateway("PATCH", f"/api/{resource}/{ident}/status", json={"status": "APROBADO"})
    assert answer.status_code == 400
    detail = answer.json()["details"][0]
    assert detail["field"] == "status"
    assert "query parameter" in detail["message"] and "?status=" in detail["message"]


def requests_logged(lines: list[str]) -> list[tuple[str, str | None]]:
    """(service, route) of each function's request line, sorted; not the warm-up of an
    environment that happened to start meanwhile (its init's rehearsal)."""
    logged = [json.loads(line) for line in lines]
    return sorted(
        (line["service"], line.get("route"))
        for line in logged
        if line.get("message") == "request" and line.get("sub") != "init-rehearsal"
    )


def test_an_order_logs_one_line_per_request_and_its_metrics_go_to_the_metrics_file(tmp_path):
    """The console: each function's one request line (the stock check's, the order's,
    the event's notification) and the listener's event line; the metric lines, which
    CloudWatch reads from the same log on AWS, are in metrics.jsonl of the data dir."""
    stack = StackProcess({**PATIENT_STOCK_CHECK, "LOCAL_DATA_DIR": str(tmp_path)}).start()
    try:
        bearer = {"Authorization": f"Bearer {stack.token}"}
        started = len(stack.output().splitlines())
        product = requests.post(
            f"{stack.gateway}/api/inventario",
            headers=bearer,
            timeout=30,
            json={**PRODUCT, "sku": "LOG-1"},
        ).json()
        # Every line of the product's request is in before the order's are counted.
        stack.wait_for_lines(
            lambda lines: ("inventory", "/api/inventario") in requests_logged(lines),
            since=started,
        )
        before = len(stack.output().splitlines())
        order = requests.post(
            f"{stack.gateway}/api/pedidos",
            headers=bearer,
            timeout=30,
            json={**ORDER, "productoId": product["id"]},
        ).json()
        expected = [
            # one stock check for the whole order (docs/api.md#orders-of-several-lines)
            ("inventory", "/internal/existencias"),
            ("notifications", "/notificaciones"),
            ("orders", "/api/pedidos"),
        ]
        lines = stack.wait_for_lines(
            lambda lines: (
                set(expected) <= set(requests_logged(lines))
                and any('"PedidoAprobadoEvent"' in line for line in lines)
            ),
            since=before,
        )
        assert not [line for line in lines if '"_aws"' in line]
        assert requests_logged(lines) == expected
        assert [
            logged["message"]
            for logged in map(json.loads, lines)
            if logged.get("message") != "request"
        ] == ["PedidoAprobadoEvent"]
    finally:
        stack.stop()
    metrics = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    named = {metric["_aws"]["CloudWatchMetrics"][0]["Metrics"][0]["Name"] for metric in metrics}
    assert {"OrdersPlaced", "StockCheckLatency", "EventsForwarded"} <= named
    assert order["id"] == 1


def test_the_gateways_root_says_what_it_is_without_a_token(http):
    root = http.gateway("GET", "/", auth=False)
    assert root.status_code == 200, root.text
    index = root.json()
    assert index["name"] == "logistics-gateway"
    assert re.fullmatch(r"\d+\.\d+\.\d+", index["version"])
    assert index["docs"] == f"{http.stack.gateway}/docs"
    assert (
        http.gateway("GET", index["docs"].removeprefix(http.stack.gateway), auth=False).status_code
        == 200
    )


def test_the_notification_services_root_says_what_it_is(http):
    root = http.notify("GET", "/")
    assert root.status_code == 200, root.text
    index = root.json()
    assert index["name"] == "notification-service"
    assert index["docs"] == f"{http.stack.gateway}/docs"
    assert re.fullmatch(r"\d+\.\d+\.\d+", index["version"])
