"""Inputs at the edges: every one gets a clear 4xx (or its 2xx), never a 500."""

import json
from decimal import Decimal
from urllib.parse import quote

import pytest

from common.platform.errors import Invalid
from common.platform.settings import Tokens
from tests.support.api import body, error_code

PRODUCT = {"sku": "E-1", "nombre": "Caja", "precioUnitario": 1, "stockActual": 1, "umbralMinimo": 0}


def test_an_integer_too_long_for_python_is_a_validation_error(api):
    raw = b'{"sku":"E","nombre":"n","precioUnitario":1,"umbralMinimo":0,"stockActual":'
    response = api.post("/api/inventario", raw=raw + b"1" * 5000 + b"}")
    assert response.status_code == 400 and error_code(response) == "VALIDATION_ERROR"


def test_deep_nesting_is_invalid_json(api):
    raw = b'{"sku":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    response = api.post("/api/inventario", raw=raw)
    assert response.status_code == 400 and error_code(response) == "INVALID_JSON"


def test_notifications_accept_any_json_object_even_with_huge_numbers(notifications):
    response = notifications.post("/notificaciones", raw=b'{"n":' + b"7" * 5000 + b"}")
    assert response.status_code == 200


def test_get_and_delete_accept_any_content_type(api):
    for method, path in [("GET", "/api/inventario"), ("DELETE", "/api/inventario/99")]:
        response = api.request(method, path, headers={"Content-Type": "text/plain"})
        assert response.status_code in (200, 404), (method, response.body)


def test_a_method_a_path_does_not_have_gets_405_in_the_platform_format(api):
    response = api.patch("/api/inventario", PRODUCT)
    assert response.status_code == 405
    assert json.loads(response.body)["error"] == "METHOD_NOT_ALLOWED"
    assert "GET" in response.headers["Allow"]


def test_an_unexpected_failure_is_a_500_in_the_platform_format(api, monkeypatch):
    def broken(self, after, limit):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("inventory.repository.ProductRepository.page", broken)
    response = api.get("/api/inventario")
    assert response.status_code == 500
    assert json.loads(response.body) == {
        "error": "INTERNAL_ERROR",
        "message": "An internal error occurred",
    }


@pytest.mark.parametrize(
    "sent, stored", [("19.990", "19.99"), ("-0.0", "0"), ("20.00", "20"), ("0.10", "0.1")]
)
def test_money_is_echoed_as_it_is_stored(api, sent, stored):
    raw = json.dumps({**PRODUCT, "precioUnitario": "X"}).replace('"X"', sent).encode()
    created = api.post("/api/inventario", raw=raw)
    assert created.status_code == 201
    assert f'"precioUnitario":{stored},'.encode() in created.body
    again = api.get(f"/api/inventario/{body(created)['id']}")
    assert body(again)["precioUnitario"] == Decimal(stored)


def test_an_email_with_a_trailing_newline_is_rejected(api):
    from orders.rules import parse_order

    with pytest.raises(Invalid):
        parse_order(
            {
                "userId": 1,
                "userEmail": "a@b.co\n",
                "clienteNombre": "A",
                "total": 1,
                "tipoPedido": "NACIONAL",
                "destino": "x",
                "productoId": 1,
                "cantidad": 1,
            }
        )


def test_a_45_digit_id_is_simply_not_found(api):
    response = api.get("/api/inventario/" + "9" * 45)
    assert response.status_code == 404 and error_code(response) == "PRODUCT_NOT_FOUND"


def test_the_local_401_carries_the_cors_header(api):
    response = api.get("/api/inventario", token=None)
    assert response.status_code == 401
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_tokens_with_an_audience_are_accepted(api):
    import time

    import jwt

    token = jwt.encode(
        {"sub": "a@b.co", "aud": "logistics", "exp": int(time.time()) + 60},
        Tokens.from_env().jwt_secret,
        "HS256",
    )
    assert api.get("/api/inventario", token=token).status_code == 200


def test_a_browser_may_read_the_paging_headers_of_a_list(api):
    for n in range(3):
        api.post(
            "/api/inventario",
            {
                "sku": f"S-{n}",
                "nombre": "Caja",
                "precioUnitario": 1,
                "stockActual": 5,
                "umbralMinimo": 1,
            },
        )
    response = api.get("/api/inventario?limit=2")
    exposed = {h.strip() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"X-Next-Token", "Link"} <= exposed and "X-Next-Token" in response.headers


def test_a_browser_may_read_retry_after_on_a_503(orders_gateway):
    from tests.support.fakes import closed_port_url

    api = orders_gateway(
        INVENTORY_SERVICE_URL=closed_port_url(), BREAKER_FAIL_MAX="1", BREAKER_RESET_SECONDS="30"
    )
    order = {
        "userId": 1,
        "userEmail": "ana@example.com",
        "clienteNombre": "Ana",
        "total": 10,
        "tipoPedido": "NACIONAL",
        "destino": "Lima",
        "productoId": 1,
        "cantidad": 1,
    }
    api.post("/api/pedidos", order)
    refused = api.post("/api/pedidos", order)
    assert refused.status_code == 503 and "Retry-After" in refused.headers
    assert "Retry-After" in refused.headers["Access-Control-Expose-Headers"]


# Digits of other scripts: str.isdigit() takes them all, int() some ("١" is 1).
UNICODE_DIGITS = ["\u00b2", "\u0661", "\uff11", "1\u00b2", "\u0967\u0968", "\U0001d7d9"]


@pytest.mark.parametrize("digits", UNICODE_DIGITS)
def test_every_numeric_path_id_is_ascii_digits_or_invalid(api, digits):
    """Each public route with an id in its path, whatever its method: 400 INVALID_ID,
    never a 500, never another item's (`١` read as 1). (The internal routes refuse every
    token before reading anything: only a service's invoke reaches them.)"""
    api.post("/api/inventario", PRODUCT)  # product 1 exists: `١` must not find it
    checked = 0
    for path, methods in api.app.routes.items():
        if "{id}" not in path:
            continue
        for method in methods:
            sent = path.replace("{id}", digits).replace("{eventId}", "evt_" + "0" * 32)
            sent = sent.replace("{bodegaId}", digits)
            answer = api.request(method, quote(sent) + "?status=APROBADO&cantidad=1", PRODUCT)
            assert (answer.status_code, error_code(answer)) == (400, "INVALID_ID"), (method, path)
            checked += 1
    assert checked == 31  # every route with an {id} (docs/api.md): returns', a shipment's DELETE
