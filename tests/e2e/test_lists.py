"""Lists that scale (docs/api.md#lists), each rule over HTTP against the real local stack."""

import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.support.stack_client import token
from tests.support.stack_process import StackClient, StackProcess
from tests.support.tokens import unregistered_user_id

PRODUCT = {"nombre": "Caja", "precioUnitario": 1, "stockActual": 5, "umbralMinimo": 1}
SHIPMENT = {"tipoEnvio": "EXPRESS", "transportista": "DHL", "destino": "Lima"}
LINK = re.compile(r'^<(?P<target>[^>]+)>; rel="next"$')


@pytest.fixture(scope="module")
def lists():
    """A stack of its own, with the smallest body cap, so lists are cut early."""
    stack = StackProcess({"MAX_RESPONSE_BYTES": "4096"}).start()
    yield StackClient(stack, token())
    stack.stop()


def create_products(http, prefix: str, count: int, **fields) -> list[dict]:
    created = []
    for i in range(count):
        response = http.gateway(
            "POST", "/api/inventario", json={**PRODUCT, "sku": f"{prefix}-{i}", **fields}
        )
        assert response.status_code == 201, response.text
        created.append(response.json())
    return created


def walk(http, path: str, **params) -> tuple[list[dict], list]:
    """Follow the Link headers from the first page to the last; the items and responses."""
    items, responses = [], []
    response = http.gateway("GET", path, params=params)
    while True:
        assert response.status_code == 200, response.text
        responses.append(response)
        page = response.json()
        assert isinstance(page, list)
        items += page
        if "Link" not in response.headers:
            assert "X-Next-Token" not in response.headers
            return items, responses
        target = LINK.match(response.headers["Link"])["target"]
        assert not target.startswith("http"), "a relative reference"
        response = http.gateway("GET", target)


def ids(items) -> list[int]:
    return [item["id"] for item in items]


# -- pages ----------------------------------------------------------------------------------


def test_a_walk_returns_every_product_once_in_ascending_id(http):
    mine = create_products(http, "WALK", 7)
    items, responses = walk(http, "/api/inventario", limit=3)
    assert ids(items) == sorted(set(ids(items)))
    assert [p for p in items if p["sku"].startswith("WALK-")] == mine
    assert all(len(r.json()) <= 3 for r in responses)


def test_the_next_link_repeats_the_path_and_query_with_the_encoded_token(http):
    create_products(http, "LINK", 3)
    first = http.gateway("GET", "/api/inventario", params={"limit": "1", "zz": "a b"})
    token_value = first.headers["X-Next-Token"]
    target = LINK.match(first.headers["Link"])["target"]
    parts = urlsplit(target)
    assert parts.path == "/api/inventario"
    assert parse_qsl(parts.query) == [("limit", "1"), ("zz", "a b"), ("nextToken", token_value)]
    assert "zz=a%20b" in parts.query


def test_the_limit_may_change_from_page_to_page(http):
    create_products(http, "CHANGE", 4)
    first = http.gateway("GET", "/api/inventario", params={"limit": 1})
    second = http.gateway(
        "GET", "/api/inventario", params={"limit": 3, "nextToken": first.headers["X-Next-Token"]}
    )
    assert second.status_code == 200 and len(second.json()) <= 3
    # A page may be short (an id whose product was deleted), never out of order.
    assert all(i > j for i in ids(second.json()) for j in ids(first.json()))


def test_items_created_during_a_walk_appear_on_a_later_page(http):
    create_products(http, "DURING", 2)
    first = http.gateway("GET", "/api/inventario", params={"limit": 1})
    (added,) = create_products(http, "DURING-NEW", 1)
    rest, _ = walk(http, "/api/inventario", limit=2, nextToken=first.headers["X-Next-Token"])
    assert added in rest and not set(ids(first.json())) & set(ids(rest))


def test_without_a_limit_the_list_holds_everything_and_the_last_page_no_token(http):
    everything = http.gateway("GET", "/api/inventario")
    assert "X-Next-Token" not in everything.headers and "Link" not in everything.headers
    assert ids(everything.json()) == sorted(ids(everything.json()))
    walked, _ = walk(http, "/api/inventario", limit=1000)
    assert walked == everything.json()


def test_unknown_query_parameters_are_ignored(http):
    assert http.gateway("GET", "/api/inventario", params={"colour": "red"}).status_code == 200


# -- the body cap ---------------------------------------------------------------------------


def test_a_list_over_the_size_cap_is_cut_with_a_token_and_walks_whole(lists):
    created = create_products(lists, "BIG", 40, descripcion="x" * 60)
    first = lists.gateway("GET", "/api/inventario")
    assert first.status_code == 200
    assert len(first.content) <= 4096 and "X-Next-Token" in first.headers
    items, responses = walk(lists, "/api/inventario")
    assert items == created
    assert all(len(r.content) <= 4096 for r in responses)
    # The same cap applies to a page with a limit.
    page = lists.gateway("GET", "/api/inventario", params={"limit": 1000})
    assert len(page.content) <= 4096 and "X-Next-Token" in page.headers


# -- alerts ---------------------------------------------------------------------------------


def test_alerts_page_in_id_order_and_follow_the_stock(lists):
    low = create_products(lists, "LOW", 3, stockActual=0, umbralMinimo=5)
    create_products(lists, "FINE", 2)
    alerts, _ = walk(lists, "/api/inventario/alertas", limit=2)
    assert [p for p in alerts if p["sku"].startswith("LOW-")] == low
    assert not [p for p in alerts if p["sku"].startswith("FINE-")]
    restocked = {**low[0], "stockActual": 50}
    del restocked["id"]
    assert lists.gateway("PUT", f"/api/inventario/{low[0]['id']}", json=restocked).ok
    alerts, _ = walk(lists, "/api/inventario/alertas")
    assert low[0]["id"] not in ids(alerts) and low[1]["id"] in ids(alerts)


# -- filters ---------------------------------------------------------------------------------


def test_shipments_by_status_by_order_and_both_with_pages(http):
    made = [
        http.gateway("POST", "/api/envios", json={**SHIPMENT, "pedidoId": pedido}).json()
        for pedido in (9001, 9002, 9001, 9001)
    ]
    for shipment in made[2:]:
        http.gateway("PATCH", f"/api/envios/{shipment['id']}/status", params={"status": "EN_RUTA"})
    by_order, _ = walk(http, "/api/envios", pedidoId="9001", limit=1)
    assert ids(by_order) == [made[0]["id"], made[2]["id"], made[3]["id"]]
    both, _ = walk(http, "/api/envios", pedidoId="9001", status="EN_RUTA", limit=1)
    assert ids(both) == [made[2]["id"], made[3]["id"]]
    en_ruta, _ = walk(http, "/api/envios", status="EN_RUTA")
    assert {made[2]["id"], made[3]["id"]} <= set(ids(en_ruta))
    assert all(s["status"] == "EN_RUTA" for s in en_ruta)


def test_orders_by_status(http):
    product = create_products(http, "ORDERFILTER", 1)[0]
    order = http.gateway(
        "POST",
        "/api/pedidos",
        json={
            # The shared stack's registrations and erasures take the low ids.
            "userId": unregistered_user_id(),
            "userEmail": "a@b.co",
            "clienteNombre": "A",
            "total": 1,
            "tipoPedido": "NACIONAL",
            "destino": "Lima",
            "productoId": product["id"],
            "cantidad": 1,
        },
    ).json()
    pending, _ = walk(http, "/api/pedidos", status="PENDIENTE", limit=2)
    assert order in pending and all(o["status"] == "PENDIENTE" for o in pending)
    for status in ("APROBADO", "EN_ENVIO", "ENTREGADO", "CANCELADO"):
        listed, _ = walk(http, "/api/pedidos", status=status)
        assert all(o["status"] == status for o in listed) and order not in listed


# -- what is refused --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, params, field",
    [
        ("/api/inventario", {"limit": "0"}, "limit"),
        ("/api/inventario", {"limit": "1001"}, "limit"),
        ("/api/inventario", {"limit": "abc"}, "limit"),
        ("/api/inventario", {"limit": "2.5"}, "limit"),
        ("/api/inventario", {"limit": ""}, "limit"),
        ("/api/inventario/alertas", {"limit": "-1"}, "limit"),
        ("/api/pedidos", {"status": "PERDIDO"}, "status"),
        ("/api/pedidos", {"status": "pendiente"}, "status"),
        ("/api/envios", {"status": "CANCELADO"}, "status"),
        ("/api/envios", {"pedidoId": "abc"}, "pedidoId"),
        ("/api/envios", {"pedidoId": "0"}, "pedidoId"),
        ("/api/envios", {"pedidoId": "1.5"}, "pedidoId"),
        ("/api/inventario", {"nextToken": "garbage"}, "nextToken"),
        ("/api/inventario", {"nextToken": ""}, "nextToken"),
    ],
)
def test_bad_paging_and_filter_parameters_are_400_naming_the_parameter(http, path, params, field):
    response = http.gateway("GET", path, params=params)
    assert response.status_code == 400
    assert response.json()["error"] == "VALIDATION_ERROR"
    assert [d["field"] for d in response.json()["details"]] == [field]


def _a_token(http, path: str, **params) -> str:
    response = http.gateway("GET", path, params={"limit": 1, **params})
    return response.headers["X-Next-Token"]


def test_a_token_is_good_only_for_its_own_list_and_filters(http):
    create_products(http, "TOKEN", 3)
    for pedido in (9101, 9101, 9102):
        http.gateway("POST", "/api/envios", json={**SHIPMENT, "pedidoId": pedido})
    products_token = _a_token(http, "/api/inventario")
    shipments_token = _a_token(http, "/api/envios", pedidoId="9101")
    edited = products_token[:-2] + ("AA" if not products_token.endswith("AA") else "BB")
    refused = [
        ("/api/inventario", {"nextToken": edited}),
        ("/api/inventario/alertas", {"nextToken": products_token}),
        ("/api/pedidos", {"nextToken": products_token}),
        ("/api/envios", {"nextToken": shipments_token, "pedidoId": "9102"}),
        ("/api/envios", {"nextToken": shipments_token}),
    ]
    for path, params in refused:
        response = http.gateway("GET", path, params=params)
        assert response.status_code == 400, (path, params)
        assert response.json()["details"][0]["field"] == "nextToken"
    accepted = http.gateway(
        "GET", "/api/envios", params={"nextToken": shipments_token, "pedidoId": "9101"}
    )
    assert accepted.status_code == 200
