"""One suite, two implementations: each repository's DynamoDB version and the in-memory
fake the unit tests use keep the same promises, so the fakes cannot drift unnoticed."""

import dataclasses
from datetime import datetime
from decimal import Decimal

import pytest

from common.platform import aws
from common.platform.errors import Conflict, Invalid, NotFound
from common.platform.history import Entry
from common.platform.settings import Cloud
from common.stock import moves as stock_contract
from common.stock.records import PRINCIPAL_ID, Warehouse
from common.storage.paging import Page
from inventory import rules as inventory_rules
from inventory.repository import ProductRepository
from inventory.stock_repository import StockRepository
from inventory.warehouse_repository import WarehouseRepository
from orders import rules as order_rules
from orders.repository import OrderRepository
from shipping import rules as shipping_rules
from shipping import tracking
from shipping.repository import TRIM_SLACK, ShipmentRepository
from tests.support.memory import (
    InMemoryOrders,
    InMemoryProducts,
    InMemoryShipments,
    InMemoryStock,
    InMemoryWarehouses,
)

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
            yield dynamodb(Cloud.from_env())

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
    products.replace(dataclasses.replace(ok, stock_actual=0))
    products.replace(dataclasses.replace(low, umbral_minimo=0))
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
        products.replace(dataclasses.replace(other, sku="A"))
    assert everything(products) == [first, other]


def test_replace_moves_the_sku_and_remove_frees_it(products):
    first = product(products, "A")
    products.add(first)
    moved = dataclasses.replace(first, sku="Z", stock_actual=0)
    assert products.replace(moved) == moved
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


def set_status(shipments, shipment_id: int, status: str, entry: Entry):
    """A PATCH's move (shipping.service.change_status): the status, unless it has it."""
    return shipments.move(
        shipment_id,
        lambda current: tracking.patched(status) if current.status != status else None,
        lambda _: entry,
    ).after


def shipment(shipments, pedido_id: int, status: str = "CREADO"):
    request = shipping_rules.parse_shipment(
        {"pedidoId": pedido_id, "tipoEnvio": "EXPRESS", "transportista": "T", "destino": "Cali"}
    )
    made = shipping_rules.created_shipment(request, shipments.next_id(), NOW)
    return dataclasses.replace(made, status=status, estado_seguimiento=status)


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
    changed = set_status(shipments, shipment.id, "EN_RUTA", Entry("EN_RUTA", "t1", "operator"))
    assert vars(changed) == {**vars(shipment), "status": "EN_RUTA", "estado_seguimiento": "EN_RUTA"}
    assert shipments.get(shipment.id) == changed
    # the same status again: nothing written, nothing recorded
    assert set_status(shipments, shipment.id, "EN_RUTA", Entry("EN_RUTA", "t2", "x")) == changed
    set_status(shipments, shipment.id, "CREADO", Entry("CREADO", "t3", "operator"))
    with pytest.raises(NotFound) as err:
        set_status(shipments, shipment.id + 1, "EN_RUTA", Entry("EN_RUTA", "t4", "operator"))
    assert err.value.code == "SHIPMENT_NOT_FOUND"
    assert shipments.history(shipment.id)[1] == [
        Entry("EN_RUTA", "t1", "operator"),
        Entry("CREADO", "t3", "operator"),
    ]
    with pytest.raises(NotFound):
        shipments.history(shipment.id + 1)


def test_a_shipment_keeps_its_newest_changes(shipments):
    request = shipping_rules.parse_shipment(
        {"pedidoId": 4, "tipoEnvio": "TERRESTRE", "transportista": "T", "destino": "Cali"}
    )
    shipment = shipping_rules.created_shipment(request, shipments.next_id(), NOW)
    shipments.add(shipment)
    for n in range(130):
        status = ("EN_RUTA", "ASIGNADO")[n % 2]
        set_status(shipments, shipment.id, status, Entry(status, f"{n:03}", "operator"))
    kept = shipments.history(shipment.id)[1]
    # never fewer than the 99 newest, never many more (trimmed a write in TRIM_SLACK)
    assert 99 <= len(kept) <= 99 + TRIM_SLACK
    assert [e.fecha for e in kept[-99:]] == [f"{n:03}" for n in range(31, 130)]


def test_an_order_moves_only_from_the_status_it_was_read_in(orders):
    made = order(orders)
    orders.add(made)
    moved = orders.set_status(made, "APROBADO", Entry("APROBADO", "t1", "operator"))
    assert moved == dataclasses.replace(made, status="APROBADO")
    assert orders.get(made.id) == moved
    # a move decided on the order as it was (PENDIENTE) lost: nothing written
    with pytest.raises(order_rules.StatusChanged):
        orders.set_status(made, "CANCELADO", Entry("CANCELADO", "t2", "customer"))
    orders.set_status(moved, "EN_ENVIO", Entry("EN_ENVIO", "t3", "operator"))
    with pytest.raises(order_rules.StatusChanged):  # no such order: not as it was read
        orders.set_status(
            dataclasses.replace(made, id=made.id + 1), "APROBADO", Entry("APROBADO", "t", None)
        )
    assert everything(orders, status="EN_ENVIO") == [orders.get(made.id)]
    assert orders.history(made.id) == (
        orders.get(made.id),
        [Entry("APROBADO", "t1", "operator"), Entry("EN_ENVIO", "t3", "operator")],
    )


# -- stock moves --------------------------------------------------------------------------


@pytest.fixture(params=["dynamodb", "memory"])
def catalog(request):
    """(products, stock): the catalog and the stock moves on it, as the inventory has them."""
    if request.param == "memory":
        found = InMemoryProducts()
        yield found, InMemoryStock(found)
        return
    request.getfixturevalue("tables")
    with aws.acting_as("InventoryFunction"):
        cloud = Cloud.from_env()
        yield ProductRepository(cloud), StockRepository(cloud)


def reservation(pedido_id: int, producto_id: int, cantidad: int):
    line = inventory_rules.LineRequest(linea=1, producto_id=producto_id, cantidad=cantidad)
    return inventory_rules.ReserveRequest(
        pedido_id=pedido_id, lineas=(line,), estrategia=stock_contract.BY_PRIORITY, desde="t0"
    )


def units(products, product_id: int) -> tuple[int, int, int]:
    p = products.get(product_id)
    return p.stock_actual, p.stock_reservado, p.stock_disponible


def test_units_are_reserved_once_and_only_while_available(catalog):
    products, stock = catalog
    item = product(products, stockActual=3, umbralMinimo=0)
    products.add(item)
    assert stock.reserve(reservation(1, item.id, 2)).applied is True
    assert stock.reserve(reservation(1, item.id, 2)).applied is False  # asked again: made once
    assert units(products, item.id) == (3, 2, 1)
    with pytest.raises(Conflict) as refused:
        stock.reserve(reservation(2, item.id, 2))
    assert refused.value.code == "INSUFFICIENT_STOCK"
    with pytest.raises(Conflict) as gone:
        stock.reserve(reservation(3, item.id + 1, 1))
    assert gone.value.code == "PRODUCT_NOT_FOUND"
    assert [r.pedido_id for r in stock.holding(item.id)] == [1]
    assert stock.reservation(2) is None
    assert units(products, item.id) == (3, 2, 1)


def test_taking_out_and_giving_back_are_each_made_once(catalog):
    products, stock = catalog
    item = product(products, stockActual=5, umbralMinimo=4)
    products.add(item)
    stock.reserve(reservation(1, item.id, 2))
    stock.reserve(reservation(2, item.id, 1))
    assert stock.take_out(1, "t1").applied is True
    assert stock.take_out(1, "t1").applied is False
    assert units(products, item.id) == (3, 1, 2)
    assert [p.id for p in products.alerts_page(0, 10).items] == [item.id]  # 3 < 4
    assert stock.give_back(2, "t2").applied is True
    assert stock.give_back(2, "t2").applied is False
    assert units(products, item.id) == (3, 0, 3)
    with pytest.raises(Conflict) as refused:  # taken out: nothing to give back
        stock.give_back(1, "t3")
    assert refused.value.code == "RESERVATION_NOT_HELD"
    with pytest.raises(Conflict):  # never reserved
        stock.take_out(9, "t3")
    assert stock.holding(item.id) == []
    assert stock.holding_page(0, 10).items == []


def test_the_undoing_moves_hold_the_units_again(catalog):
    products, stock = catalog
    item = product(products, stockActual=5, umbralMinimo=0)
    products.add(item)
    stock.reserve(reservation(1, item.id, 2))
    stock.take_out(1, "t1")
    assert stock.put_back(1, "t2").applied is True and stock.put_back(1, "t2").applied is False
    assert units(products, item.id) == (5, 2, 3)
    stock.give_back(1, "t3")
    # forced: held again whatever is available (an approved order's units)
    products.replace(dataclasses.replace(products.get(item.id), stock_actual=1))
    assert stock.reserve(reservation(1, item.id, 2), force=True).applied is True
    assert units(products, item.id) == (1, 2, -1)
    assert [r.pedido_id for r in stock.holding_page(0, 10).items] == [1]
    # given back, then approved again (a crash cut the first approval short)
    stock.give_back(1, "t4")
    products.replace(dataclasses.replace(products.get(item.id), stock_actual=5))
    assert stock.reserve(reservation(1, item.id, 2)).applied is True
    assert units(products, item.id) == (5, 2, 3)


def test_a_reserved_product_is_not_removed_and_keeps_its_units_when_replaced(catalog):
    products, stock = catalog
    item = product(products, stockActual=5, umbralMinimo=0)
    products.add(item)
    stock.reserve(reservation(1, item.id, 2))
    with pytest.raises(Conflict) as refused:
        products.remove(item.id)
    assert refused.value.code == "PRODUCT_RESERVED"
    recounted = products.replace(dataclasses.replace(item, stock_actual=1))
    assert (recounted.stock_reservado, recounted.stock_disponible) == (2, -1)
    stock.give_back(1, "t1")
    products.remove(item.id)


def in_state(stock, products, pedido_id: int, state: str | None) -> int:
    """Order `pedido_id`'s reservation of one unit of a product of its own (its id), in
    `state` (None: no reservation), by the moves that lead there."""
    item = product(products, sku=f"S-{pedido_id}", stockActual=5, umbralMinimo=0)
    products.add(item)
    if state is not None:
        stock.reserve(reservation(pedido_id, item.id, 1))
    if state == stock_contract.HANDED_OVER:
        stock.take_out(pedido_id, "t1")
    elif state == stock_contract.RELEASED:
        stock.give_back(pedido_id, "t1")
    return item.id


def make(stock, move: str, pedido_id: int, producto_id: int) -> bool:
    """One move of the contract, as inventory.service.move_stock makes it."""
    if move in (stock_contract.RESERVE, stock_contract.FORCE):
        held = reservation(pedido_id, producto_id, 1)
        return stock.reserve(held, force=move == stock_contract.FORCE).applied
    return {
        stock_contract.TAKE_OUT: stock.take_out,
        stock_contract.GIVE_BACK: stock.give_back,
        stock_contract.PUT_BACK: stock.put_back,
    }[move](pedido_id, "t2").applied


@pytest.mark.parametrize("move", stock_contract.MOVES)
def test_each_move_goes_from_and_to_the_states_the_stock_contract_names(catalog, move):
    """common.stock.moves's rules are the inventory's: a move from a state it starts from is
    made and leaves the state it names; found there already, it was made (False); from
    any other, RESERVATION_NOT_HELD."""
    products, stock = catalog
    states = (None, stock_contract.HELD, stock_contract.HANDED_OVER, stock_contract.RELEASED)
    for pedido_id, state in enumerate(states, start=1):
        producto_id = in_state(stock, products, pedido_id, state)
        if state in stock_contract.FROM[move]:
            assert make(stock, move, pedido_id, producto_id) is True, state
        elif state == stock_contract.TO[move]:
            assert make(stock, move, pedido_id, producto_id) is False, state
        else:
            with pytest.raises(Conflict) as refused:
                make(stock, move, pedido_id, producto_id)
            assert refused.value.code == stock_contract.NOT_HELD, state
            continue
        assert stock.reservation(pedido_id).status == stock_contract.TO[move], state


# -- stock per warehouse, and orders of several lines -------------------------------------


@pytest.fixture(params=["dynamodb", "memory"])
def depot(request):
    """(products, stock, warehouses): the catalog, its stock moves and its warehouses."""
    if request.param == "memory":
        found, places = InMemoryProducts(), InMemoryWarehouses()
        yield found, InMemoryStock(found, places.several([PRINCIPAL_ID])), places
        return
    request.getfixturevalue("tables")
    with aws.acting_as("InventoryFunction"):
        cloud = Cloud.from_env()
        yield ProductRepository(cloud), StockRepository(cloud), WarehouseRepository(cloud)


def warehouse(warehouses, stock, codigo: str, prioridad: int):
    made = Warehouse(
        id=warehouses.next_id(),
        codigo=codigo,
        nombre=codigo,
        region=None,
        prioridad=prioridad,
        creado_en="t0",
    )
    warehouses.add(made)
    if isinstance(stock, InMemoryStock):
        stock.warehouses[made.id] = made
    return made.id


def stocked(products, stock, sku: str, units: dict[int, int]) -> int:
    """A product with these units in each warehouse."""
    item = product(products, sku=sku, stockActual=units.get(PRINCIPAL_ID, 0), umbralMinimo=0)
    products.add(item)
    for bodega, count in units.items():
        if bodega != PRINCIPAL_ID:
            stock.set_count(item.id, bodega, count, "t0")
    return item.id


def order_of(
    pedido_id: int,
    lines: list[tuple[int, int]],
    estrategia=stock_contract.BY_PRIORITY,
    pinned: dict | None = None,
):
    asked = tuple(
        inventory_rules.LineRequest(
            linea=n, producto_id=p, cantidad=q, bodega_id=(pinned or {}).get(n)
        )
        for n, (p, q) in enumerate(lines, start=1)
    )
    return inventory_rules.ReserveRequest(
        pedido_id=pedido_id, lineas=asked, estrategia=estrategia, desde="t0"
    )


def rows_of(products, product_id: int) -> dict[int, tuple[int, int, int]]:
    return {
        r.bodega_id: (r.stock_actual, r.stock_reservado, r.stock_disponible)
        for r in products.get(product_id).existencias
    }


def test_an_order_of_several_lines_is_reserved_by_priority_every_line_or_none(depot):
    products, stock, warehouses = depot
    norte = warehouse(warehouses, stock, "NORTE", 10)  # before PRINCIPAL (100)
    p = stocked(products, stock, "P", {PRINCIPAL_ID: 5, norte: 2})
    q = stocked(products, stock, "Q", {PRINCIPAL_ID: 1})
    held = stock.reserve(order_of(1, [(p, 3), (q, 1)])).reservation
    assert [line.asignaciones for line in held.lineas] == [{norte: 2, PRINCIPAL_ID: 1}, {1: 1}]
    assert rows_of(products, p) == {PRINCIPAL_ID: (5, 1, 4), norte: (2, 2, 0)}
    assert units(products, p) == (7, 3, 4)
    # the second line cannot be covered: nothing of the first is reserved either
    with pytest.raises(Conflict) as refused:
        stock.reserve(order_of(2, [(p, 1), (q, 1)]))
    assert refused.value.code == "INSUFFICIENT_STOCK"
    assert refused.value.details == [
        {"field": "lineas[1].cantidad", "message": f"only 0 of product {q} available"}
    ]
    assert units(products, p) == (7, 3, 4) and stock.reservation(2) is None
    holdings = [(h.pedido_id, h.linea, h.bodega_id, h.cantidad) for h in stock.holding(p)]
    assert holdings == [(1, 1, PRINCIPAL_ID, 1), (1, 1, norte, 2)]


def test_the_fewest_warehouses_cover_the_order_and_a_pinned_line_takes_from_its_own(depot):
    products, stock, warehouses = depot
    norte = warehouse(warehouses, stock, "NORTE", 10)
    sur = warehouse(warehouses, stock, "SUR", 20)
    p = stocked(products, stock, "P", {norte: 2, sur: 5})
    q = stocked(products, stock, "Q", {norte: 1, sur: 5})
    fewest = stock.reserve(order_of(1, [(p, 3), (q, 2)], stock_contract.FEWEST_WAREHOUSES))
    assert [line.asignaciones for line in fewest.reservation.lineas] == [{sur: 3}, {sur: 2}]
    by_priority = stock.reserve(order_of(2, [(p, 2), (q, 1)]))
    assert [line.asignaciones for line in by_priority.reservation.lineas] == [
        {norte: 2},
        {norte: 1},
    ]
    pinned = stock.reserve(order_of(3, [(q, 1)], pinned={1: sur}))
    assert pinned.reservation.lineas[0].asignaciones == {sur: 1}
    with pytest.raises(Conflict):  # none left in NORTE for a line pinned there
        stock.reserve(order_of(4, [(p, 1)], pinned={1: norte}))


def test_each_warehouse_s_units_leave_and_come_back_where_they_were(depot):
    products, stock, warehouses = depot
    norte = warehouse(warehouses, stock, "NORTE", 10)
    p = stocked(products, stock, "P", {PRINCIPAL_ID: 4, norte: 1})
    stock.reserve(order_of(1, [(p, 3)]))
    assert stock.take_out(1, "t1").applied is True
    assert rows_of(products, p) == {PRINCIPAL_ID: (2, 0, 2), norte: (0, 0, 0)}
    assert stock.put_back(1, "t2").applied is True
    assert rows_of(products, p) == {PRINCIPAL_ID: (4, 2, 2), norte: (1, 1, 0)}
    assert stock.give_back(1, "t3").applied is True
    assert rows_of(products, p) == {PRINCIPAL_ID: (4, 0, 4), norte: (1, 0, 1)}
    # a recount found fewer in one warehouse than an order holds there: no take-out
    stock.reserve(order_of(2, [(p, 5)]))
    stock.set_count(p, norte, 0, "t4")
    with pytest.raises(Conflict) as refused:
        stock.take_out(2, "t5")
    assert refused.value.code == "INSUFFICIENT_STOCK"
    assert rows_of(products, p)[norte] == (0, 1, -1)


def test_transfers_move_available_units_only(depot):
    products, stock, warehouses = depot
    norte = warehouse(warehouses, stock, "NORTE", 10)
    p = stocked(products, stock, "P", {PRINCIPAL_ID: 3})
    stock.reserve(order_of(1, [(p, 2)]))
    with pytest.raises(Conflict):
        stock.transfer(p, PRINCIPAL_ID, norte, 2, "t1")
    moved = stock.transfer(p, PRINCIPAL_ID, norte, 1, "t1")
    assert {r.bodega_id: r.stock_actual for r in moved.existencias} == {PRINCIPAL_ID: 2, norte: 1}
    assert units(products, p) == (3, 2, 1)
