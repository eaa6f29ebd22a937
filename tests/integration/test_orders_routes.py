"""Orders routes (docs/api.md#orders,
#the-order-event-pedidoaprobadoevent): real stock checks over HTTP, real async invokes."""

import json
import re
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest

from tests.support.api import body, error_code
from tests.support.endpoints import point
from tests.support.fakes import closed_port_url

ORDER = {
    "userId": 7,
    "userEmail": "ana@example.com",
    "clienteNombre": "Ana Pérez",
    "total": 59.97,
    "tipoPedido": "NACIONAL",
    "destino": "Bogotá",
    "productoId": 1,
    "cantidad": 2,
}
ISO_MICROS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$")


@pytest.fixture
def product(orders_api):
    response = orders_api.post(
        "/api/inventario",
        {
            "sku": "P-1",
            "nombre": "Caja",
            "precioUnitario": 19.99,
            "stockActual": 5,
            "umbralMinimo": 1,
        },
    )
    return body(response)


def place(api, **overrides):
    return api.post("/api/pedidos", {**ORDER, **overrides})


def test_a_stocked_order_is_created_pending(orders_api, product):
    response = place(orders_api, productoId=product["id"])
    assert response.status_code == 201
    order = body(response)
    assert order == {
        **ORDER,
        "id": order["id"],
        "total": Decimal("59.97"),
        "productoId": product["id"],
        "status": "PENDIENTE",
        "observaciones": None,
        "creadoEn": order["creadoEn"],
        "estrategia": "PRIORIDAD",
        # checked over HTTP by the contract's check, which says only true or false: what
        # the product is, is not known (the batch check says it: test_order_lines)
        "lineas": [
            {
                "linea": 1,
                "productoId": product["id"],
                "sku": None,
                "nombre": None,
                "cantidad": ORDER["cantidad"],
                "precioUnitario": None,
                "bodegaId": None,
                "asignaciones": [],
                "cantidadEnviada": 0,
                "cantidadEntregada": 0,
                "cantidadDevuelta": 0,
            }
        ],
    }
    assert ISO_MICROS.match(order["creadoEn"])
    assert body(orders_api.get(f"/api/pedidos/{order['id']}")) == order
    assert body(orders_api.get("/api/pedidos")) == [order]


def test_international_orders_get_the_customs_note(orders_api, product):
    order = body(place(orders_api, productoId=product["id"], tipoPedido="INTERNACIONAL"))
    assert order["observaciones"] == "Pedido internacional — requiere documentación aduanera"


def test_server_owned_fields_sent_by_the_client_are_ignored(orders_api, product):
    order = body(
        place(
            orders_api,
            productoId=product["id"],
            id=999,
            status="ENTREGADO",
            creadoEn="2000-01-01T00:00:00.000000",
            observaciones="mine",
        )
    )
    assert order["id"] != 999 and order["status"] == "PENDIENTE"
    assert order["creadoEn"] != "2000-01-01T00:00:00.000000" and order["observaciones"] is None


def test_exact_stock_is_enough(orders_api, product):
    assert place(orders_api, productoId=product["id"], cantidad=5).status_code == 201


def test_insufficient_stock_is_refused_and_nothing_is_saved(orders_api, product, order_events):
    response = place(orders_api, productoId=product["id"], cantidad=6)
    assert response.status_code == 400 and error_code(response) == "INSUFFICIENT_STOCK"
    assert body(orders_api.get("/api/pedidos")) == []
    assert order_events.wait_for(1, timeout=0.3) == []


def test_an_unknown_product_is_refused_and_nothing_is_saved(orders_api):
    response = place(orders_api, productoId=4242)
    assert response.status_code == 400 and error_code(response) == "PRODUCT_NOT_FOUND"
    assert body(orders_api.get("/api/pedidos")) == []


@pytest.mark.parametrize(
    "field, value",
    [
        ("userId", 0),
        ("userEmail", "not-an-email"),
        ("clienteNombre", " "),
        ("total", -1),
        ("tipoPedido", "LOCAL"),
        ("destino", ""),
        ("productoId", "1"),
        ("cantidad", 0),
        ("cantidad", 1.5),
        ("userId", None),
        # Past what an id or a count may hold, in any notation (docs/api.md#conventions).
        ("userId", Decimal("1E+50")),
        ("userId", 2**63),
        ("productoId", Decimal("1E+50")),
        ("cantidad", Decimal("1E+38")),
        ("cantidad", 2**31),
    ],
)
def test_invalid_orders_are_refused_before_any_stock_check(orders_api, product, field, value):
    response = place(orders_api, **{"productoId": product["id"], field: value})
    assert response.status_code == 400 and error_code(response) == "VALIDATION_ERROR"
    assert [d["field"] for d in body(response)["details"]] == [field]
    assert body(orders_api.get("/api/pedidos")) == []


def test_a_body_that_is_not_an_object_gets_400(orders_api):
    assert orders_api.post("/api/pedidos", raw=b"[]").status_code == 400


def test_the_event_is_published_with_the_order_payload(orders_api, product, order_events):
    order = body(place(orders_api, productoId=product["id"], tipoPedido="INTERNACIONAL"))
    events = order_events.wait_for(1)
    assert events == [
        {
            "pedidoId": order["id"],
            "userEmail": "ana@example.com",
            "total": Decimal("59.97"),
            "tipoPedido": "INTERNACIONAL",
        }
    ]


def test_a_publish_failure_never_fails_the_order(orders_gateway, product, monkeypatch, caplog):
    point(monkeypatch, "LAMBDA", closed_port_url())
    api = orders_gateway()  # its publisher now reaches for a queue that is not there
    response = place(api, productoId=product["id"])
    assert response.status_code == 201
    assert body(api.get("/api/pedidos")) == [body(response)]
    (failure,) = [
        r for r in caplog.records if r.getMessage() == "PedidoAprobadoEvent not published"
    ]
    assert failure.levelname == "ERROR" and failure.payload["pedidoId"] == body(response)["id"]


def test_the_fallback_is_400_and_an_open_breaker_is_503_with_retry_after(orders_gateway):
    orders_api = orders_gateway(
        INVENTORY_SERVICE_URL=closed_port_url(), BREAKER_FAIL_MAX="2", BREAKER_RESET_SECONDS="30"
    )
    first = place(orders_api)
    assert first.status_code == 400 and error_code(first) == "STOCK_NOT_CONFIRMED"
    for _ in range(3):
        refused = place(orders_api)
        assert refused.status_code == 503 and error_code(refused) == "INVENTORY_UNAVAILABLE"
        assert 1 <= int(refused.headers["Retry-After"]) <= 30
    assert body(orders_api.get("/api/pedidos")) == []
    # Inventory itself is unaffected while the orders breaker is open.
    assert orders_api.get("/api/inventario").status_code == 200


def test_unknown_and_invalid_order_ids(orders_api):
    assert error_code(orders_api.get("/api/pedidos/4242")) == "ORDER_NOT_FOUND"
    assert orders_api.get("/api/pedidos/4242").status_code == 404
    assert orders_api.get("/api/pedidos/abc").status_code == 400


def test_parallel_creates_get_distinct_ids_and_their_own_bodies(orders_api, product):
    names = [f"Cliente {i}" for i in range(16)]
    with ThreadPoolExecutor(16) as pool:
        responses = list(
            pool.map(
                lambda name: place(
                    orders_api, productoId=product["id"], cantidad=1, clienteNombre=name
                ),
                names,
            )
        )
    assert [r.status_code for r in responses] == [201] * 16
    orders = [json.loads(r.body) for r in responses]
    assert [o["clienteNombre"] for o in orders] == names
    assert len({o["id"] for o in orders}) == 16
