"""Who may do what, through the gateway's routes (docs/api.md#who-may-do-what): every call
a customer may not make is 403 and changes nothing; other customers' orders and shipments
are 404, exactly like ids that do not exist; lists hold only the caller's own."""

import pytest

from common.platform.settings import Tokens
from infra.dev.tokens import local_token
from tests.support.api import body, error_code

PRODUCT = {
    "sku": "R-1",
    "nombre": "Caja",
    "precioUnitario": 2,
    "stockActual": 9,
    "umbralMinimo": 20,
}
ORDER = {
    "userEmail": "ana@example.com",
    "clienteNombre": "Ana",
    "total": 10,
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "cantidad": 1,
}
SHIPMENT = {"tipoEnvio": "EXPRESS", "transportista": "DHL", "destino": "Lima"}


def as_customer(api, user_id: int):
    api.token = local_token(
        Tokens.from_env(), f"customer-{user_id}@example.com", "customer", user_id
    )
    return api


@pytest.fixture
def world(orders_gateway):
    """An operator's data: a product, orders of customers 7 and 8, a shipment of each."""
    operator = orders_gateway()
    product = body(operator.post("/api/inventario", PRODUCT))
    orders = {
        user: body(
            operator.post("/api/pedidos", {**ORDER, "userId": user, "productoId": product["id"]})
        )
        for user in (7, 8)
    }
    shipments = {
        user: body(operator.post("/api/envios", {**SHIPMENT, "pedidoId": orders[user]["id"]}))
        for user in (7, 8)
    }
    return operator, product, orders, shipments


def snapshot(operator) -> dict:
    return {
        path: operator.get(path).body
        for path in ("/api/inventario", "/api/pedidos", "/api/envios", "/api/inventario/alertas")
    }


def test_every_call_a_customer_may_not_make_is_403_and_changes_nothing(orders_gateway, world):
    operator, product, orders, shipments = world
    before = snapshot(operator)
    ana = as_customer(orders_gateway(), 7)
    forbidden = [
        ("POST", "/api/inventario", {**PRODUCT, "sku": "R-2"}),
        ("POST", "/api/inventario", {"sku": ""}),  # 403 before validation
        ("PUT", f"/api/inventario/{product['id']}", {**PRODUCT, "stockActual": 0}),
        ("DELETE", f"/api/inventario/{product['id']}", None),
        ("DELETE", "/api/inventario/abc", None),
        ("GET", "/api/inventario/alertas", None),
        ("POST", "/api/envios", {**SHIPMENT, "pedidoId": orders[7]["id"]}),
        ("PATCH", f"/api/envios/{shipments[7]['id']}/status?status=EN_RUTA", None),
        ("POST", "/api/pedidos", {**ORDER, "userId": 8, "productoId": product["id"]}),
        ("PATCH", f"/api/pedidos/{orders[7]['id']}/status?status=APROBADO", None),
        ("PATCH", f"/api/pedidos/{orders[8]['id']}/status?status=ENTREGADO", None),
        # Someone else's data, and erasing them; the record of requests (403 before its
        # query).
        ("GET", "/api/usuarios/8/datos", None),
        ("GET", "/api/usuarios/8/datos/exportar", None),
        ("POST", "/api/usuarios/8/cancelacion", {"motivo": "x"}),
        ("GET", "/api/usuarios/solicitudes?limit=0", None),
    ]
    for method, path, sent in forbidden:
        response = ana.request(method, path, sent, headers={"Idempotency-Key": "k-1"})
        assert response.status_code == 403, (method, path, response.body)
        assert body(response)["error"] == "FORBIDDEN" and body(response)["details"] == []
    assert snapshot(operator) == before


def test_a_customers_invalid_order_is_still_400(orders_gateway, world):
    ana = as_customer(orders_gateway(), 7)
    response = ana.post("/api/pedidos", {**ORDER, "userId": 8, "total": "x", "productoId": 1})
    assert response.status_code == 400 and error_code(response) == "VALIDATION_ERROR"


def test_someone_elses_order_or_shipment_is_404_exactly_like_a_missing_one(orders_gateway, world):
    operator, _, orders, shipments = world
    ana = as_customer(orders_gateway(), 7)
    for path, missing in (
        (f"/api/pedidos/{orders[8]['id']}", "/api/pedidos/999"),
        (f"/api/envios/{shipments[8]['id']}", "/api/envios/999"),
    ):
        theirs, absent = ana.get(path), ana.get(missing)
        assert theirs.status_code == absent.status_code == 404
        assert body(theirs)["error"] == body(absent)["error"]
        assert body(theirs)["message"] == body(absent)["message"].replace(
            "999", path.rsplit("/", 1)[1]
        )
    cancel = ana.patch(f"/api/pedidos/{orders[8]['id']}/status?status=CANCELADO")
    assert cancel.status_code == 404 and error_code(cancel) == "ORDER_NOT_FOUND"
    assert body(operator.get(f"/api/pedidos/{orders[8]['id']}"))["status"] == "PENDIENTE"


def test_a_customer_lists_and_cancels_their_own(orders_gateway, world):
    _, product, orders, shipments = world
    ana = as_customer(orders_gateway(), 7)
    assert body(ana.get("/api/pedidos")) == [orders[7]]
    assert body(ana.get("/api/pedidos?status=PENDIENTE&limit=1")) == [orders[7]]
    assert body(ana.get("/api/pedidos?status=APROBADO")) == []
    assert body(ana.get("/api/envios")) == [shipments[7]]
    assert body(ana.get(f"/api/envios?pedidoId={orders[8]['id']}")) == []
    assert body(ana.get(f"/api/envios?pedidoId={orders[7]['id']}&status=CREADO")) == [shipments[7]]
    assert body(ana.get(f"/api/envios/{shipments[7]['id']}")) == shipments[7]
    cancelled = ana.patch(f"/api/pedidos/{orders[7]['id']}/status?status=CANCELADO")
    assert cancelled.status_code == 200 and body(cancelled)["status"] == "CANCELADO"
    # the catalog is everyone's to read
    assert body(ana.get("/api/inventario")) == [product]
    assert body(ana.get(f"/api/inventario/{product['id']}")) == product
    assert body(ana.get(f"/api/inventario/{product['id']}/stock?cantidad=3")) is True


def test_a_customer_places_an_order_for_themselves(orders_gateway, world):
    _, product, orders, _ = world
    luis = as_customer(orders_gateway(), 8)
    placed = luis.post("/api/pedidos", {**ORDER, "userId": 8, "productoId": product["id"]})
    assert placed.status_code == 201
    assert [o["id"] for o in body(luis.get("/api/pedidos"))] == [
        orders[8]["id"],
        body(placed)["id"],
    ]


def test_a_customers_pages_are_their_own_and_signed_for_them(orders_gateway, world):
    operator, product, _, _ = world
    for _ in range(3):
        operator.post("/api/pedidos", {**ORDER, "userId": 7, "productoId": product["id"]})
    ana = as_customer(orders_gateway(), 7)
    first = ana.get("/api/pedidos?limit=2")
    token = first.headers["X-Next-Token"]
    rest = ana.get(f"/api/pedidos?limit=2&nextToken={token}")
    seen = body(first) + body(rest)
    if "X-Next-Token" in rest.headers:
        seen += body(ana.get(f"/api/pedidos?limit=2&nextToken={rest.headers['X-Next-Token']}"))
    assert len(seen) == 4 and all(order["userId"] == 7 for order in seen)
    assert [o["id"] for o in seen] == sorted(o["id"] for o in seen)
