"""One suite, two implementations: each repository's DynamoDB version and the in-memory
fake the unit tests use keep the same promises, so the fakes cannot drift unnoticed."""

from datetime import datetime
from decimal import Decimal

import pytest

from common.errors import Invalid, NotFound
from common.settings import Settings
from inventory import rules as inventory_rules
from inventory.repository import ProductRepository
from orders import rules as order_rules
from orders.repository import OrderRepository
from shipping import rules as shipping_rules
from shipping.repository import ShipmentRepository
from tests.support.memory import InMemoryOrders, InMemoryProducts, InMemoryShipments

NOW = datetime(2026, 11, 22, 10, 0)


def implementations(dynamodb, memory):
    @pytest.fixture(params=["dynamodb", "memory"])
    def repository(request):
        if request.param == "memory":
            return memory()
        request.getfixturevalue("tables")
        return dynamodb(Settings.from_env())
    return repository


products = implementations(ProductRepository, InMemoryProducts)
orders = implementations(OrderRepository, InMemoryOrders)
shipments = implementations(ShipmentRepository, InMemoryShipments)


def product(products, sku: str = "A", **fields):
    body = {"sku": sku, "nombre": "Caja", "precioUnitario": Decimal("19.99"), "stockActual": 5,
            "umbralMinimo": 1, "bodega": None, "descripcion": "d", **fields}
    return inventory_rules.product(products.next_id(), inventory_rules.parse_product(body))


# -- every repository -------------------------------------------------------------------

def test_ids_start_at_one_and_increase(products):
    assert [products.next_id() for _ in range(3)] == [1, 2, 3]


def test_what_is_added_is_read_back_equal_and_listed_by_id(products):
    second, first = product(products, "B"), product(products, "A")
    products.add(first)
    products.add(second)
    assert products.get(first.id) == first
    assert products.get(first.id).precio_unitario == Decimal("19.99")
    assert products.list_all() == [second, first]  # ascending id, not insertion order


@pytest.mark.parametrize("ident", [7, 0, -1, 2**63])
def test_an_unknown_id_is_not_found(products, ident):
    with pytest.raises(NotFound) as err:
        products.get(ident)
    assert err.value.code == "PRODUCT_NOT_FOUND"


# -- products ---------------------------------------------------------------------------

def test_a_taken_sku_is_refused_on_add_and_on_replace(products):
    first = product(products, "A")
    products.add(first)
    with pytest.raises(Invalid) as err:
        products.add(product(products, "A"))
    assert err.value.code == "DUPLICATE_SKU"
    other = product(products, "B")
    products.add(other)
    with pytest.raises(Invalid):
        products.replace(inventory_rules.Product(**{**vars(other), "sku": "A"}))
    assert products.list_all() == [first, other]


def test_replace_moves_the_sku_and_remove_frees_it(products):
    first = product(products, "A")
    products.add(first)
    moved = inventory_rules.Product(**{**vars(first), "sku": "Z", "stock_actual": 0})
    products.replace(moved)
    assert products.get(first.id) == moved
    products.add(product(products, "A"))  # the old sku is free
    products.remove(first.id)
    with pytest.raises(NotFound):
        products.get(first.id)
    products.add(product(products, "Z"))  # and so is the removed product's


def test_replacing_or_removing_an_unknown_product_is_not_found(products):
    with pytest.raises(NotFound):
        products.replace(product(products, "A"))
    with pytest.raises(NotFound):
        products.remove(42)


# -- orders and shipments -----------------------------------------------------------------

def test_orders_are_stored_whole(orders):
    body = {"userId": 1, "userEmail": "a@b.co", "clienteNombre": "A", "total": Decimal("0.10"),
            "tipoPedido": "INTERNACIONAL", "destino": "Quito", "productoId": 2, "cantidad": 3}
    order = order_rules.new_order(order_rules.parse_order(body), orders.next_id(), NOW)
    orders.add(order)
    assert orders.get(order.id) == order and orders.list_all() == [order]
    with pytest.raises(NotFound) as err:
        orders.get(order.id + 1)
    assert err.value.code == "ORDER_NOT_FOUND"


def test_a_shipment_status_change_keeps_everything_else(shipments):
    request = shipping_rules.parse_shipment({"pedidoId": 4, "tipoEnvio": "TERRESTRE",
                                             "transportista": "T", "destino": "Cali"})
    shipment = shipping_rules.new_shipment(request, shipments.next_id(), NOW)
    shipments.add(shipment)
    changed = shipments.set_status(shipment.id, "EN_RUTA")
    assert vars(changed) == {**vars(shipment), "status": "EN_RUTA"}
    assert shipments.get(shipment.id) == changed
    with pytest.raises(NotFound) as err:
        shipments.set_status(shipment.id + 1, "EN_RUTA")
    assert err.value.code == "SHIPMENT_NOT_FOUND"
    assert shipments.list_all() == [changed]
