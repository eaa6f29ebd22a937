"""Who may do what, over HTTP against the real local stack, with tokens from `make -s
token` (docs/api.md#who-may-do-what)."""

import subprocess

import jwt
import pytest

from tests.support.stack_client import token
from tests.support.stack_process import ROOT, StackClient
from tests.support.tokens import unregistered_user_id

PRODUCT = {
    "sku": "WHO-1",
    "nombre": "Caja",
    "precioUnitario": 3,
    "stockActual": 50,
    "umbralMinimo": 5,
}
ORDER = {
    "userEmail": "c@example.com",
    "clienteNombre": "C",
    "total": 9,
    "tipoPedido": "NACIONAL",
    "destino": "Quito",
    "cantidad": 1,
}


@pytest.fixture(scope="module")
def customers(stack, http):
    """Two customers ("me" and "other"), each with an order and a shipment placed by the
    operator. Their userIds are ones no registration takes: the stack is shared with files
    that register accounts, and an order for a registered id with another email is 409."""
    product = http.gateway("POST", "/api/inventario", json=PRODUCT).json()
    mine = {}
    for who in ("me", "other"):
        user = unregistered_user_id()
        order = http.gateway(
            "POST",
            "/api/pedidos",
            json={
                **ORDER,
                "userId": user,
                "userEmail": f"c{user}@example.com",
                "productoId": product["id"],
            },
        ).json()
        shipment = http.gateway(
            "POST",
            "/api/envios",
            json={
                "pedidoId": order["id"],
                "tipoEnvio": "TERRESTRE",
                "transportista": "DHL",
                "destino": "Quito",
            },
        ).json()
        client = StackClient(stack, token("ROLE=customer", f"USER_ID={user}"))
        mine[who] = (client, order, shipment)
    return product, mine


def test_make_token_prints_a_customers_token_with_its_user_id():
    claims = jwt.decode(token("ROLE=customer", "USER_ID=42"), options={"verify_signature": False})
    assert (claims["role"], claims["userId"]) == ("customer", 42)
    assert claims["exp"] - claims["iat"] == 24 * 3600
    assert jwt.decode(token(), options={"verify_signature": False})["role"] == "operator"


def test_a_customer_token_needs_its_user_id():
    result = subprocess.run(
        ["make", "-s", "token", "ROLE=customer"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and "USER_ID" in result.stderr


def test_a_customers_forbidden_calls_are_403_and_change_nothing(http, customers):
    product, mine = customers
    client, order, shipment = mine["me"]
    before = [
        http.gateway("GET", path).json()
        for path in ("/api/inventario", "/api/pedidos", "/api/envios")
    ]
    calls = [
        ("POST", "/api/inventario", PRODUCT),
        ("PUT", f"/api/inventario/{product['id']}", {**PRODUCT, "stockActual": 0}),
        ("DELETE", f"/api/inventario/{product['id']}", None),
        ("GET", "/api/inventario/alertas", None),
        (
            "POST",
            "/api/envios",
            {"pedidoId": order["id"], "tipoEnvio": "EXPRESS", "transportista": "X", "destino": "Y"},
        ),
        ("PATCH", f"/api/envios/{shipment['id']}/status?status=ENTREGADO", None),
        ("PATCH", f"/api/pedidos/{order['id']}/status?status=APROBADO", None),
        (
            "POST",
            "/api/pedidos",
            {**ORDER, "userId": mine["other"][1]["userId"], "productoId": product["id"]},
        ),
    ]
    for method, path, body in calls:
        answer = client.gateway(method, path, json=body)
        assert answer.status_code == 403, (method, path, answer.text)
        assert answer.json() == {
            "error": "FORBIDDEN",
            "message": answer.json()["message"],
            "details": [],
        }
    after = [
        http.gateway("GET", path).json()
        for path in ("/api/inventario", "/api/pedidos", "/api/envios")
    ]
    assert after == before


def test_a_customer_sees_only_their_own(http, customers):
    _, mine = customers
    client, order, shipment = mine["me"]
    _, other_order, other_shipment = mine["other"]
    assert [o["id"] for o in client.gateway("GET", "/api/pedidos").json()] == [order["id"]]
    assert [s["id"] for s in client.gateway("GET", "/api/envios").json()] == [shipment["id"]]
    for path in (f"/api/pedidos/{other_order['id']}", f"/api/envios/{other_shipment['id']}"):
        assert client.gateway("GET", path).status_code == 404
    cancelled = client.gateway("PATCH", f"/api/pedidos/{order['id']}/status?status=CANCELADO")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "CANCELADO"
