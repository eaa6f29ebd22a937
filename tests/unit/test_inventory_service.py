"""Inventory use cases against an in-memory product store: no HTTP, no DynamoDB."""

from decimal import Decimal

import pytest

from common.platform.errors import Invalid, NotFound
from inventory import rules, service
from tests.support.memory import InMemoryProducts, InMemoryWarehouses

BODY = {
    "sku": "SKU-1",
    "nombre": "Caja",
    "precioUnitario": Decimal("19.99"),
    "stockActual": 2,
    "umbralMinimo": 3,
    "bodega": "B1",
    "descripcion": None,
}


@pytest.fixture
def products():
    return InMemoryProducts()


def create(products, body):
    return service.create_product(products, InMemoryWarehouses(), rules.parse_new_product(body))


def test_create_gives_the_next_id_and_stores_the_product(products):
    first = create(products, BODY)
    second = create(products, {**BODY, "sku": "SKU-2"})
    assert (first.id, second.id) == (1, 2)
    assert service.get_product(products, 1) == first
    assert first.precio_unitario == Decimal("19.99") and first.bodega == "B1"
    assert service.list_products(products, 0, 1000).items == [first, second]


def test_an_invalid_body_stores_nothing(products):
    with pytest.raises(Invalid) as err:
        create(products, {**BODY, "nombre": " "})
    assert err.value.code == "VALIDATION_ERROR"
    assert service.list_products(products, 0, 1000).items == []


def test_a_duplicate_sku_is_refused(products):
    create(products, BODY)
    with pytest.raises(Invalid) as err:
        create(products, BODY)
    assert err.value.code == "DUPLICATE_SKU"
    assert len(service.list_products(products, 0, 1000).items) == 1


def test_replace_keeps_the_id_and_replaces_every_field(products):
    created = create(products, BODY)
    replaced = service.replace_product(products, created.id, {**BODY, "sku": "NEW", "bodega": None})
    assert replaced.id == created.id and replaced.sku == "NEW" and replaced.bodega is None
    assert service.get_product(products, created.id) == replaced
    # The old sku is free again.
    assert create(products, BODY).sku == "SKU-1"


def test_replace_validates_before_looking_the_product_up(products):
    with pytest.raises(Invalid):
        service.replace_product(products, 99, {**BODY, "stockActual": -1})
    with pytest.raises(NotFound) as err:
        service.replace_product(products, 99, BODY)
    assert err.value.code == "PRODUCT_NOT_FOUND"


def test_replace_refuses_another_products_sku(products):
    create(products, BODY)
    other = create(products, {**BODY, "sku": "SKU-2"})
    with pytest.raises(Invalid) as err:
        service.replace_product(products, other.id, BODY)
    assert err.value.code == "DUPLICATE_SKU"
    assert service.get_product(products, other.id).sku == "SKU-2"


def test_delete_removes_and_then_the_product_is_unknown(products):
    created = create(products, BODY)
    service.delete_product(products, created.id)
    for use_case in (service.get_product, service.delete_product):
        with pytest.raises(NotFound):
            use_case(products, created.id)


@pytest.mark.parametrize("ident", [0, -1, 10**40])
def test_impossible_ids_are_not_found(products, ident):
    with pytest.raises(NotFound):
        service.get_product(products, ident)


def test_alerts_are_the_products_strictly_below_their_threshold(products):
    low = create(products, {**BODY, "sku": "LOW", "stockActual": 2})
    create(products, {**BODY, "sku": "AT", "stockActual": 3})
    create(products, {**BODY, "sku": "ZERO", "stockActual": 0, "umbralMinimo": 0})
    assert service.low_stock_alerts(products, 0, 1000).items == [low]


@pytest.mark.parametrize("cantidad, expected", [("0", True), ("2", True), ("3", False)])
def test_stock_check(products, cantidad, expected):
    created = create(products, BODY)
    assert service.check_stock(products, created.id, cantidad) is expected


def test_stock_check_validates_cantidad_before_looking_the_product_up(products):
    with pytest.raises(Invalid):
        service.check_stock(products, 99, "x")
    with pytest.raises(NotFound):
        service.check_stock(products, 99, "1")
