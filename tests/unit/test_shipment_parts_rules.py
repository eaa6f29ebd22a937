"""The rules of shipments of parts of an order (shipping.parts, docs/api.md#shipments-of-parts):
which warehouse a shipment leaves from, what it may carry, and what its leaving and its
delivery add to its order's lines."""

import pytest

from common.orders.records import Assignment, Order, OrderLine, Shipment, ShipmentLine
from common.platform.errors import Conflict, Invalid
from common.platform.validation import Checker
from shipping import parts
from shipping.parts import OrderParts


def line(linea: int, cantidad: int, held: dict[int, int], sent: int = 0, got: int = 0):
    return OrderLine(
        linea=linea,
        producto_id=10 + linea,
        sku=None,
        nombre=None,
        cantidad=cantidad,
        precio_unitario=None,
        asignaciones=tuple(Assignment(bodega_id=b, cantidad=q) for b, q in held.items()),
        cantidad_enviada=sent,
        cantidad_entregada=got,
    )


def order(*lines: OrderLine, status: str = "APROBADO") -> Order:
    return Order(
        id=5,
        user_id=1,
        user_email="a@b.co",
        cliente_nombre="A",
        total=1,
        tipo_pedido="NACIONAL",
        destino="Lima",
        producto_id=None,
        cantidad=None,
        lineas=lines,
        status=status,
        observaciones=None,
        creado_en="2026-12-01T10:00:00.000000",
    )


def asked(*pairs: tuple[int, int]) -> tuple[ShipmentLine, ...]:
    return tuple(ShipmentLine(linea=n, cantidad=q) for n, q in pairs)


def shipment(bodega: int, *pairs: tuple[int, int]) -> Shipment:
    return Shipment(
        id=9,
        pedido_id=5,
        tipo_envio="EXPRESS",
        transportista="DHL",
        destino="Lima",
        status="CREADO",
        guia_despecho="EXP-20261201-000009",
        ruta_descripcion=None,
        fecha_estimada_entrega="2026-12-02T10:00:00.000000",
        creado_en="2026-12-01T10:00:00.000000",
        bodega_id=bodega,
        lineas=asked(*pairs),
    )


TWO_WAREHOUSES = OrderParts(
    order=order(line(1, 4, {1: 3, 2: 1}), line(2, 2, {1: 2})), on_shipments={}
)


def code_of(call) -> tuple[str, list[str]]:
    with pytest.raises(Conflict) as refused:
        call()
    return refused.value.code, [d["field"] for d in refused.value.details or []]


def test_the_only_warehouse_holding_every_line_is_chosen():
    assert parts.warehouse_of(TWO_WAREHOUSES, asked((1, 2), (2, 2)), None) == 1
    assert parts.warehouse_of(TWO_WAREHOUSES, asked((1, 1)), 2) == 2


def test_several_warehouses_that_could_are_named():
    code, fields = code_of(lambda: parts.warehouse_of(TWO_WAREHOUSES, asked((1, 1)), None))
    assert (code, fields) == ("SEVERAL_WAREHOUSES", ["bodegaId", "bodegaId"])
    # Spread so that none holds all: several too.
    code, _ = code_of(lambda: parts.warehouse_of(TWO_WAREHOUSES, asked((1, 4)), None))
    assert code == "SEVERAL_WAREHOUSES"


def test_more_than_is_not_yet_on_a_shipment_is_refused_naming_each_line():
    shipped = OrderParts(order=TWO_WAREHOUSES.order, on_shipments={(1, 1): 2, (2, 1): 2})
    # Line 2 has none left; line 1 has 2, though not both in warehouse 1.
    code, fields = code_of(lambda: parts.warehouse_of(shipped, asked((2, 1), (1, 2)), 1))
    assert (code, fields) == ("EXCEEDS_PENDING", ["lineas[0].cantidad"])
    code, fields = code_of(lambda: parts.warehouse_of(shipped, asked((1, 2)), 1))
    assert (code, fields) == ("SEVERAL_WAREHOUSES", ["bodegaId", "bodegaId"])
    code, fields = code_of(lambda: parts.warehouse_of(shipped, asked((2, 1)), None))
    assert (code, fields) == ("EXCEEDS_PENDING", ["lineas[0].cantidad"])


@pytest.mark.parametrize("status", ["PENDIENTE", "CANCELADO", "ENTREGADO"])
def test_only_approved_or_shipping_orders_ship_parts(status):
    pending = OrderParts(order=order(line(1, 1, {1: 1}), status=status), on_shipments={})
    code, _ = code_of(lambda: parts.warehouse_of(pending, asked((1, 1)), None))
    assert code == "ORDER_NOT_SHIPPABLE"


def test_unknown_and_repeated_lines_are_400():
    refused = parts.unknown_lines(TWO_WAREHOUSES.order, asked((1, 1), (7, 1)))
    assert isinstance(refused, Invalid)
    assert [d["field"] for d in refused.details or []] == ["lineas[1].linea"]
    check = Checker({"lineas": [{"linea": 1, "cantidad": 1}, {"linea": 1, "cantidad": 2}]})
    parts.parse_lines(check)
    assert [d["field"] for d in check.details] == ["lineas[1].linea"]
    assert parts.parse_lines(Checker({})) == ((), None)
    # bodegaId without lineas: the contract's shipment, which ignores it
    assert parts.parse_lines(Checker({"bodegaId": "x"})) == ((), None)


def test_counted_adds_and_takes_back_by_line_and_warehouse():
    part = shipment(1, (1, 2), (2, 1))
    added = parts.counted(TWO_WAREHOUSES, part)
    assert added == {(1, 1): 2, (2, 1): 1}
    back = parts.counted(OrderParts(order=TWO_WAREHOUSES.order, on_shipments=added), part, -1)
    assert back == {(1, 1): 0, (2, 1): 0}


def test_a_departure_counts_its_units_never_beyond_a_line():
    changed = parts.departure(TWO_WAREHOUSES, shipment(1, (1, 3)), whole=False)
    assert {n: line.cantidad_enviada for n, line in changed.items()} == {1: 3}
    full = OrderParts(order=order(line(1, 4, {1: 4}, sent=4)), on_shipments={})
    assert parts.departure(full, shipment(1, (1, 2)), whole=False) == {}
    whole = parts.departure(TWO_WAREHOUSES, shipment(1, (1, 1)), whole=True)
    assert {n: line.cantidad_enviada for n, line in whole.items()} == {1: 4, 2: 2}


def test_the_last_delivery_completes_the_order():
    almost = OrderParts(
        order=order(line(1, 4, {1: 4}, 4, 3), line(2, 2, {1: 2}, 2, 2), status="EN_ENVIO"),
        on_shipments={},
    )
    changed, complete = parts.delivery(almost, shipment(1, (1, 1)))
    assert ({n: line.cantidad_entregada for n, line in changed.items()}, complete) == ({1: 4}, True)
    changed, complete = parts.delivery(TWO_WAREHOUSES, shipment(1, (1, 1)))
    assert complete is False
