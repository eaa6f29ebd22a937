"""Inventory rules as plain functions, and the shared field checks they are built on."""

from decimal import Decimal

import pytest

from common.platform.errors import Invalid
from common.platform.validation import Checker
from inventory import rules

FIELDS = {
    "sku": "S-1",
    "nombre": "Caja",
    "precioUnitario": Decimal("19.99"),
    "stockActual": 10,
    "umbralMinimo": 3,
    "bodega": None,
    "descripcion": None,
}


def product(**overrides) -> rules.Product:
    return rules.Product(**{**vars(rules.parse_product(FIELDS)), "id": 1, **overrides})


def test_a_valid_body_becomes_product_fields_and_a_product_with_an_id():
    fields = rules.parse_product({**FIELDS, "bodega": "Norte", "extra": "ignored"})
    assert vars(fields) == {
        "sku": "S-1",
        "nombre": "Caja",
        "precio_unitario": Decimal("19.99"),
        "stock_actual": 10,
        "umbral_minimo": 3,
        "bodega": "Norte",
        "descripcion": None,
    }
    assert rules.product(7, fields) == rules.Product(id=7, **vars(fields))


def test_every_invalid_field_is_reported_at_once():
    with pytest.raises(Invalid) as err:
        rules.parse_product({**FIELDS, "sku": " ", "stockActual": -1, "precioUnitario": "1"})
    assert [d["field"] for d in err.value.details] == ["sku", "precioUnitario", "stockActual"]


def test_duplicate_and_unknown_products_have_their_codes():
    assert rules.duplicate_sku("A").code == "DUPLICATE_SKU"
    assert rules.unknown_product(5).code == "PRODUCT_NOT_FOUND"
    assert "5" in rules.unknown_product(5).message


@pytest.mark.parametrize(
    "stock, threshold, alert",
    [(2, 3, True), (3, 3, False), (4, 3, False), (0, 0, False), (0, 1, True)],
)
def test_in_alert_is_strictly_below_the_threshold(stock, threshold, alert):
    assert rules.in_alert(product(stock_actual=stock, umbral_minimo=threshold)) is alert


@pytest.mark.parametrize("stock, cantidad, enough", [(5, 5, True), (5, 6, False), (0, 0, True)])
def test_has_stock(stock, cantidad, enough):
    assert rules.has_stock(product(stock_actual=stock), cantidad) is enough


@pytest.mark.parametrize("raw, value", [("0", 0), ("7", 7), ("007", 7), ("9" * 40, 10**40 - 1)])
def test_parse_cantidad_accepts_whole_numbers(raw, value):
    assert rules.parse_cantidad(raw) == value


@pytest.mark.parametrize("raw", [None, "", " 1", "-1", "1.0", "1e2", "x", "9" * 41, "5\n"])
def test_parse_cantidad_rejects_everything_else(raw):
    with pytest.raises(Invalid) as err:
        rules.parse_cantidad(raw)
    assert err.value.code == "VALIDATION_ERROR" and err.value.details[0]["field"] == "cantidad"


def test_integral_decimals_are_integers_but_fractions_are_not():
    check = Checker({"a": Decimal("5.0"), "b": Decimal("1.5"), "c": Decimal("5E0")})
    assert check.count("a", minimum=0) == 5 and isinstance(check.count("a", minimum=0), int)
    assert check.count("c", minimum=0) == 5
    assert check.count("b", minimum=0) is None
    assert [d["field"] for d in check.details] == ["b"]


@pytest.mark.parametrize(
    "value", [Decimal("1E+38"), Decimal("2147483648"), 2**31, Decimal("1E+999999"), 10**126]
)
def test_a_count_past_its_range_is_refused_in_any_notation(value):
    check = Checker({"n": value})
    assert check.count("n", minimum=0) is None
    assert check.details == [{"field": "n", "message": "must be an integer from 0 to 2147483647"}]


@pytest.mark.parametrize("value", [Decimal("1E+126"), Decimal("1E-131"), Decimal("1." + "1" * 38)])
def test_numbers_dynamodb_cannot_store_are_rejected(value):
    check = Checker({"n": value})
    assert check.number("n") is None


def test_text_with_lone_surrogates_is_rejected():
    check = Checker({"t": "bad \ud800"})
    assert check.text("t") is None
