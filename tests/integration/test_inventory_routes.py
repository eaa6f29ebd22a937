"""Inventory routes through chalice.test (docs/api.md#inventory)."""

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest

from common.platform import jsonio
from tests.support.api import body, error_code

PRODUCT = {
    "sku": "SKU-1",
    "nombre": "Caja",
    "precioUnitario": 19.99,
    "stockActual": 10,
    "umbralMinimo": 3,
    "bodega": "B1",
    "descripcion": "Caja de cartón",
}


def create(api, **overrides):
    response = api.post("/api/inventario", {**PRODUCT, **overrides})
    assert response.status_code == 201, response.body
    return body(response)


def test_create_returns_the_product_with_a_generated_id(api):
    product = create(api)
    assert product == {
        **PRODUCT,
        "id": product["id"],
        "precioUnitario": Decimal("19.99"),
        "stockReservado": 0,
        "stockDisponible": 10,
    }
    assert isinstance(product["id"], int) and product["id"] > 0
    assert body(api.get(f"/api/inventario/{product['id']}")) == product


def test_money_keeps_its_exact_digits(api):
    product = create(api, precioUnitario=Decimal("1234567890123.4567"))
    raw = api.get(f"/api/inventario/{product['id']}").body
    assert b'"precioUnitario":1234567890123.4567' in raw


def test_optional_fields_default_to_null(api):
    product = create(api, bodega=None, descripcion=None)
    assert product["bodega"] is None and product["descripcion"] is None


def test_list_is_empty_then_holds_every_product(api):
    assert body(api.get("/api/inventario")) == []
    first, second = create(api, sku="A"), create(api, sku="B")
    assert body(api.get("/api/inventario")) == [first, second]


def test_ids_are_distinct_and_increasing(api):
    ids = [create(api, sku=f"S{i}")["id"] for i in range(3)]
    assert ids == sorted(ids) and len(set(ids)) == 3


@pytest.mark.parametrize(
    "field, value",
    [
        ("sku", ""),
        ("sku", "   "),
        ("sku", None),
        ("sku", 5),
        ("nombre", ""),
        ("nombre", None),
        ("precioUnitario", -0.01),
        ("precioUnitario", "19.99"),
        ("precioUnitario", True),
        ("precioUnitario", None),
        ("precioUnitario", Decimal("1e400")),
        ("stockActual", -1),
        ("stockActual", 1.5),
        ("stockActual", "3"),
        ("stockActual", False),
        ("stockActual", None),
        ("stockActual", 10**40),
        ("umbralMinimo", -1),
        ("umbralMinimo", 2.5),
        ("umbralMinimo", None),
        ("bodega", 7),
        ("descripcion", ["x"]),
    ],
)
def test_invalid_fields_are_rejected_and_nothing_is_saved(api, field, value):
    response = api.post("/api/inventario", {**PRODUCT, field: value})
    assert response.status_code == 400
    assert error_code(response) == "VALIDATION_ERROR"
    assert [d["field"] for d in body(response)["details"]] == [field]
    assert body(api.get("/api/inventario")) == []


def test_every_problem_is_reported_at_once(api):
    response = api.post("/api/inventario", {"sku": "", "precioUnitario": -1})
    fields = {d["field"] for d in body(response)["details"]}
    assert fields == {"sku", "nombre", "precioUnitario", "stockActual", "umbralMinimo"}


def test_zero_values_are_valid(api):
    product = create(api, precioUnitario=0, stockActual=0, umbralMinimo=0)
    assert (product["precioUnitario"], product["stockActual"]) == (0, 0)


def test_unknown_fields_are_ignored(api):
    product = create(api, color="rojo", id=999)
    assert "color" not in product and product["id"] != 999


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b"", b"[]", b"42", b'"text"', b"null", b'{"precioUnitario": NaN}', b"\xff\xfe"],
)
def test_bodies_that_are_not_a_json_object_get_400(api, raw):
    response = api.post("/api/inventario", raw=raw)
    assert response.status_code == 400
    assert error_code(response) == "INVALID_JSON"
    assert response.headers["Content-Type"].startswith("application/json")


def test_a_body_over_one_mebibyte_gets_413(api):
    response = api.post("/api/inventario", {**PRODUCT, "descripcion": "x" * (1024 * 1024)})
    assert response.status_code == 413
    assert error_code(response) == "PAYLOAD_TOO_LARGE"


def test_any_content_type_is_read_as_json(api):
    response = api.post(
        "/api/inventario", PRODUCT, headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert response.status_code == 201


def test_duplicate_sku_is_rejected_on_create(api):
    create(api)
    response = api.post("/api/inventario", {**PRODUCT, "nombre": "Otra"})
    assert response.status_code == 400
    assert error_code(response) == "DUPLICATE_SKU"
    assert len(body(api.get("/api/inventario"))) == 1


def test_concurrent_creates_of_one_sku_make_exactly_one_product(api):
    with ThreadPoolExecutor(8) as pool:
        statuses = list(
            pool.map(lambda _: api.post("/api/inventario", PRODUCT).status_code, range(8))
        )
    assert sorted(statuses) == [201] + [400] * 7
    assert len(body(api.get("/api/inventario"))) == 1


def test_put_replaces_every_field(api):
    product = create(api)
    replacement = {
        "sku": "SKU-2",
        "nombre": "Sobre",
        "precioUnitario": 0.5,
        "stockActual": 1,
        "umbralMinimo": 0,
    }
    response = api.put(f"/api/inventario/{product['id']}", replacement)
    assert response.status_code == 200
    expected = {
        **replacement,
        "id": product["id"],
        "precioUnitario": Decimal("0.5"),
        "bodega": None,
        "descripcion": None,
        "stockReservado": 0,
        "stockDisponible": 1,
    }
    assert body(response) == expected
    assert body(api.get(f"/api/inventario/{product['id']}")) == expected


def test_put_moves_the_sku_claim(api):
    product = create(api)
    api.put(f"/api/inventario/{product['id']}", {**PRODUCT, "sku": "NEW"})
    assert create(api, sku="SKU-1")["sku"] == "SKU-1"  # the old sku is free again
    assert error_code(api.post("/api/inventario", {**PRODUCT, "sku": "NEW"})) == "DUPLICATE_SKU"


def test_put_keeping_its_own_sku_is_not_a_duplicate(api):
    product = create(api)
    response = api.put(f"/api/inventario/{product['id']}", {**PRODUCT, "nombre": "X"})
    assert response.status_code == 200


def test_put_to_another_products_sku_is_rejected_and_changes_nothing(api):
    first, second = create(api, sku="A"), create(api, sku="B")
    response = api.put(f"/api/inventario/{second['id']}", {**PRODUCT, "sku": "A"})
    assert response.status_code == 400 and error_code(response) == "DUPLICATE_SKU"
    assert body(api.get(f"/api/inventario/{second['id']}")) == second
    assert body(api.get(f"/api/inventario/{first['id']}")) == first


def test_put_validates_like_post(api):
    product = create(api)
    response = api.put(f"/api/inventario/{product['id']}", {**PRODUCT, "stockActual": -5})
    assert response.status_code == 400
    assert body(api.get(f"/api/inventario/{product['id']}")) == product


def test_delete_answers_204_and_frees_the_sku(api):
    product = create(api)
    response = api.delete(f"/api/inventario/{product['id']}")
    assert response.status_code == 204 and response.body == b""
    assert api.get(f"/api/inventario/{product['id']}").status_code == 404
    assert create(api)["id"] != product["id"]  # ids are never reused


@pytest.mark.parametrize(
    "method, suffix", [("GET", ""), ("PUT", ""), ("DELETE", ""), ("GET", "/stock?cantidad=1")]
)
def test_unknown_ids_get_404(api, method, suffix):
    response = api.request(method, f"/api/inventario/424242{suffix}", PRODUCT)
    assert response.status_code == 404
    assert error_code(response) == "PRODUCT_NOT_FOUND"


@pytest.mark.parametrize("raw_id", ["abc", "1.5", "1e3", "%20"])
def test_non_numeric_ids_get_400(api, raw_id):
    response = api.get(f"/api/inventario/{raw_id}")
    assert response.status_code == 400 and error_code(response) == "INVALID_ID"


@pytest.mark.parametrize("raw_id", ["0", "-1", "9" * 30])
def test_numeric_ids_no_product_can_have_get_404(api, raw_id):
    assert api.get(f"/api/inventario/{raw_id}").status_code == 404


@pytest.mark.parametrize("cantidad, expected", [(0, True), (9, True), (10, True), (11, False)])
def test_stock_check_compares_stock_with_cantidad(api, cantidad, expected):
    product = create(api, stockActual=10)
    response = api.get(f"/api/inventario/{product['id']}/stock?cantidad={cantidad}")
    assert response.status_code == 200
    assert response.body == (b"true" if expected else b"false")


@pytest.mark.parametrize(
    "query", ["", "?cantidad=", "?cantidad=abc", "?cantidad=-1", "?cantidad=1.5"]
)
def test_stock_check_needs_a_whole_cantidad(api, query):
    product = create(api)
    response = api.get(f"/api/inventario/{product['id']}/stock{query}")
    assert response.status_code == 400 and error_code(response) == "VALIDATION_ERROR"


def test_alerts_list_products_strictly_below_their_threshold(api):
    below = create(api, sku="below", stockActual=2, umbralMinimo=3)
    create(api, sku="equal", stockActual=3, umbralMinimo=3)
    create(api, sku="above", stockActual=4, umbralMinimo=3)
    create(api, sku="never", stockActual=0, umbralMinimo=0)
    assert body(api.get("/api/inventario/alertas")) == [below]


def test_alerts_are_an_empty_array_when_none(api):
    create(api, stockActual=5, umbralMinimo=1)
    assert body(api.get("/api/inventario/alertas")) == []


def test_errors_carry_cors_headers(api):
    response = api.get("/api/inventario/abc")
    assert response.headers["Access-Control-Allow-Origin"] == "*"


# -- numbers a count or an id may hold, in any notation (docs/api.md#conventions) ---------------

HUGE = ["1E+38", "1e38", "1E+39", "100000000000000000000000000000000000000", "9" * 126, "1E+125"]


@pytest.mark.parametrize("field", ["stockActual", "umbralMinimo"])
@pytest.mark.parametrize("notation", HUGE)
def test_a_count_past_its_range_is_refused_whatever_its_notation(api, field, notation):
    raw = jsonio.dumps({**PRODUCT, field: "HUGE"}).replace('"HUGE"', notation)
    response = api.post("/api/inventario", raw=raw)
    assert response.status_code == 400, response.body
    [detail] = body(response)["details"]
    assert detail["field"] == field and "2147483647" in detail["message"]
    assert body(api.get("/api/inventario")) == []


def test_the_largest_count_is_accepted_and_read_back(api):
    product = create(api, stockActual=2147483647, umbralMinimo=2147483647)
    assert body(api.get(f"/api/inventario/{product['id']}"))["stockActual"] == 2147483647
    assert (
        api.post("/api/inventario", {**PRODUCT, "sku": "S2", "stockActual": 2147483648}).status_code
        == 400
    )


@pytest.mark.parametrize("raw_id", ["9" * 166, "9" * 39, str(2**63)])
def test_every_verb_treats_an_id_no_product_can_have_alike(api, raw_id):
    for method in ("GET", "PUT", "DELETE"):
        response = api.request(method, f"/api/inventario/{raw_id}", PRODUCT)
        assert (method, response.status_code) == (method, 404), response.body
        assert error_code(response) == "PRODUCT_NOT_FOUND"
    assert api.get(f"/api/inventario/{raw_id}/stock?cantidad=1").status_code == 404


def test_a_list_never_fails_because_of_one_stored_item(api, tables):
    """An item an earlier version stored with a number of 39 digits (or any the API no
    longer accepts) does not break the lists that hold it."""
    create(api)
    [stored] = body(api.get("/api/inventario"))
    item = tables.get_item(TableName="ProductsTable", Key={"id": {"N": str(stored["id"])}})["Item"]
    tables.put_item(
        TableName="ProductsTable",
        Item={**item, "stockActual": {"N": "1" + "0" * 38}, "umbralMinimo": {"N": "1E+39"}},
    )
    for path in ("/api/inventario", "/api/inventario?limit=5", "/api/inventario/alertas"):
        assert api.get(path).status_code == 200, path
    assert api.get(f"/api/inventario/{stored['id']}").status_code == 200
