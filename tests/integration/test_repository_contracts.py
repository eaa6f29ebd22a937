"""One suite, two implementations: each repository's DynamoDB version and the in-memory
fake the unit tests use keep the same promises, so the fakes cannot drift unnoticed."""

from datetime import datetime
from decimal import Decimal

import pytest

from common import aws
from common.errors import Conflict, Invalid, NotFound
from common.paging import Page
from common.settings import Settings
from inventory import rules as inventory_rules
from inventory.repository import ProductRepository
from orders import rules as order_rules
from orders.repository import OrderRepository
from shipping import rules as shipping_rules
from shipping.repository import ShipmentRepository
from tests.support.memory import InMemoryOrders, InMemoryProducts, InMemoryShipments

NOW = datetime(2026, 11, 22, 10, 0)


def implementations(dynamodb, memory, function: str):
    """Each repository as the function that owns its table uses it (its role's calls)."""

    @pytest.fixture(params=["dynamodb", "memory"])
    def repository(request):
        if request.param == "memory":
            yield memory()
            return
        request.getfixturevalue("tables")
        with aws.acting_as(function):
            yield dynamodb(Settings.from_env())

    return repository


products = implementations(ProductRepository, InMemoryProducts, "InventoryFunction")
orders = implementations(OrderRepository, InMemoryOrders, "OrdersFunction")
shipments = implementations(ShipmentRepository, InMemoryShipments, "ShippingFunction")


def product(products, sku: str = "A", **fields):
    body = {
        "sku": sku,
        "nombre": "Caja",
        "precioUnitario": Decimal("19.99"),
        "stockActual": 5,
        "umbralMinimo": 1,
        "bodega": None,
        "descripcion": "d",
        **fields,
    }
    return inventory_rules.product(products.next_id(), inventory_rules.parse_product(body))


def everything(repository, **filters) -> list:
    """Every item, walking the pages of 2 from the start."""
    items, after = [], 0
    while after is not None:
        page = repository.page(after, 2, **filters)
        assert [i.id for i in page.items] == sorted(i.id for i in page.items)
        assert all(i.id > after for i in page.items)
        items += page.items
        after = page.resume_after
    return items


# -- every repository -------------------------------------------------------------------


def test_ids_start_at_one_and_increase(products):
    assert [products.next_id() for _ in range(3)] == [1, 2, 3]


def test_what_is_added_is_read_back_equal_and_listed_by_id(products):
    second, first = product(products, "B"), product(products, "A")
    products.add(first)
    products.add(second)
    assert products.get(first.id) == first
    assert products.get(first.id).precio_unitario == Decimal("19.99")
    assert everything(products) == [second, first]  # ascending id, not insertion order


@pytest.mark.parametrize("ident", [7, 0, -1, 2**63])
def test_an_unknown_id_is_not_found(products, ident):
    with pytest.raises(NotFound) as err:
        products.get(ident)
    assert err.value.code == "PRODUCT_NOT_FOUND"


def test_pages_are_in_ascending_id_and_resume_where_they_stopped(products):
    added = [product(products, f"P{i}") for i in range(5)]
    for item in reversed(added):
        products.add(item)
    first = products.page(0, 3)
    assert first.items == added[:3] and first.resume_after == added[2].id
    last = products.page(first.resume_after, 3)
    assert last.items == added[3:] and last.resume_after is None
    assert products.page(added[-1].id, 3) == Page([], None)


def test_a_removed_product_leaves_no_gap_in_the_walk(products):
    added = [product(products, f"P{i}") for i in range(5)]
    for item in added:
        products.add(item)
    products.remove(added[1].id)
    products.remove(added[2].id)
    assert everything(products) == [added[0], added[3], added[4]]


def test_alerts_are_the_products_below_their_threshold_in_id_order(products):
    low = product(products, "LOW", stockActual=1, umbralMinimo=2)
    ok = product(products, "OK", stockActual=2, umbralMinimo=2)
    zero = product(products, "ZERO", stockActual=0, umbralMinimo=0)
    lower = product(products, "LOWER", stockActual=0, umbralMinimo=9)
    for item in (low, ok, zero, lower):
        products.add(item)
    assert products.alerts_page(0, 10).items == [low, lower]
    first = products.alerts_page(0, 1)
    assert first.items == [low]
    assert products.alerts_page(first.resume_after, 1).items == [lower]
    # Replacing a product moves it in and out of alert in the same write.
    products.replace(inventory_rules.Product(**{**vars(ok), "stock_actual": 0}))
    products.replace(inventory_rules.Product(**{**vars(low), "umbral_minimo": 0}))
    assert [p.sku for p in products.alerts_page(0, 10).items] == ["OK", "LOWER"]


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
    assert everything(products) == [first, other]


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


def order(orders, status: str = "PENDIENTE"):
    body = {
        "userId": 1,
        "userEmail": "a@b.co",
        "clienteNombre": "A",
        "total": 1,
        "tipoPedido": "NACIONAL",
        "destino": "Quito",
        "productoId": 2,
        "cantidad": 3,
    }
    made = order_rules.pending_order(order_rules.parse_order(body), orders.next_id(), NOW)
    return order_rules.Order(**{**vars(made), "status": status})


def test_orders_are_listed_by_status(orders):
    made = [
        order(orders, status)
        for status in ("PENDIENTE", "APROBADO", "PENDIENTE", "CANCELADO", "PENDIENTE")
    ]
    for item in made:
        orders.add(item)
    assert everything(orders, status="PENDIENTE") == [made[0], made[2], made[4]]
    assert everything(orders, status="ENTREGADO") == []
    assert everything(orders) == made


def shipment(shipments, pedido_id: int, status: str = "CREADO"):
    request = shipping_rules.parse_shipment(
        {"pedidoId": pedido_id, "tipoEnvio": "EXPRESS", "transportista": "T", "destino": "Cali"}
    )
    made = shipping_rules.created_shipment(request, shipments.next_id(), NOW)
    return shipping_rules.Shipment(**{**vars(made), "status": status})


def test_shipments_are_listed_by_status_by_order_and_by_both(shipments):
    made = [
        shipment(shipments, 7),
        shipment(shipments, 8, "EN_RUTA"),
        shipment(shipments, 7, "EN_RUTA"),
        shipment(shipments, 7),
    ]
    for item in made:
        shipments.add(item)
    assert everything(shipments, status="EN_RUTA") == [made[1], made[2]]
    assert everything(shipments, pedido_id=7) == [made[0], made[2], made[3]]
    assert everything(shipments, pedido_id=7, status="CREADO") == [made[0], made[3]]
    assert everything(shipments, pedido_id=9) == []


def test_orders_are_stored_whole(orders):
    body = {
        "userId": 1,
        "userEmail": "a@b.co",
        "clienteNombre": "A",
        "total": Decimal("0.10"),
        "tipoPedido": "INTERNACIONAL",
        "destino": "Quito",
        "productoId": 2,
        "cantidad": 3,
    }
    order = order_rules.pending_order(order_rules.parse_order(body), orders.next_id(), NOW)
    orders.add(order)
    assert orders.get(order.id) == order and everything(orders) == [order]
    with pytest.raises(NotFound) as err:
        orders.get(order.id + 1)
    assert err.value.code == "ORDER_NOT_FOUND"


def test_a_shipment_status_change_keeps_everything_else(shipments):
    request = shipping_rules.parse_shipment(
        {"pedidoId": 4, "tipoEnvio": "TERRESTRE", "transportista": "T", "destino": "Cali"}
    )
    shipment = shipping_rules.created_shipment(request, shipments.next_id(), NOW)
    shipments.add(shipment)
    changed = shipments.set_status(shipment.id, "EN_RUTA")
    assert vars(changed) == {**vars(shipment), "status": "EN_RUTA"}
    assert shipments.get(shipment.id) == changed
    with pytest.raises(NotFound) as err:
        shipments.set_status(shipment.id + 1, "EN_RUTA")
    assert err.value.code == "SHIPMENT_NOT_FOUND"
    assert everything(shipments) == [changed]


def test_an_order_moves_only_from_where_it_may(orders):
    made = order(orders)
    orders.add(made)
    moved = orders.move(made.id, "APROBADO", ("PENDIENTE",))
    assert moved == order_rules.Order(**{**vars(made), "status": "APROBADO"})
    assert orders.get(made.id) == moved
    assert orders.move(made.id, "APROBADO", ("PENDIENTE",)) == moved  # already there
    with pytest.raises(Conflict) as err:
        orders.move(made.id, "ENTREGADO", ("EN_ENVIO",))
    assert err.value.details[0]["message"] == "cannot move from APROBADO to ENTREGADO"
    with pytest.raises(Conflict):
        orders.move(made.id, "PENDIENTE", ())
    with pytest.raises(NotFound):
        orders.move(made.id + 1, "APROBADO", ("PENDIENTE",))
    assert everything(orders, status="APROBADO") == [moved]
