"""Return rules (orders.return_rules, docs/api.md#returns): what may be returned, which
moves the states allow and to whom, and what a reception says of each line."""

import pytest

from common.identity.callers import Caller
from common.orders.records import Order, OrderLine, ReturnCount
from common.orders.return_records import Return, ReturnLine
from common.platform.errors import Conflict, Forbidden, Invalid, NotFound
from orders import return_rules

OPERATOR = Caller(sub="op", role="operator")
ANA = Caller(sub="ana", role="customer", user_id=7)


def order(delivered=(3, 2), counts=None) -> Order:
    lines = tuple(
        OrderLine(
            linea=i,
            producto_id=10 + i,
            sku=None,
            nombre=None,
            cantidad=n,
            precio_unitario=1,
            cantidad_entregada=n,
        )
        for i, n in enumerate(delivered, start=1)
    )
    return Order(
        id=5,
        user_id=7,
        user_email=None,
        cliente_nombre=None,
        total=1,
        tipo_pedido="NACIONAL",
        destino=None,
        producto_id=None,
        cantidad=None,
        lineas=lines,
        status="ENTREGADO",
        observaciones=None,
        creado_en="2026-12-01T00:00:00Z",
        devoluciones=counts,
    )


def a_return(estado="SOLICITADA", units=(3,), origen="customer") -> Return:
    return Return(
        id=1,
        pedido_id=5,
        estado=estado,
        origen=origen,
        motivo="OTRO",
        comentario=None,
        lineas=tuple(
            ReturnLine(linea=i, producto_id=10 + i, cantidad=n)
            for i, n in enumerate(units, start=1)
        ),
        creado_en="2026-12-01T00:00:00Z",
        user_id=7,
    )


def test_a_lines_returnable_units_are_its_delivered_less_those_held_by_returns():
    held = order(counts=(ReturnCount(linea=1, en_devolucion=2, devuelta=1),))
    assert return_rules.returnable(held, 1) == 1
    assert return_rules.returnable(held, 2) == 2
    return_rules.check_returnable(held, ((1, 1), (2, 2)))
    with pytest.raises(Conflict) as refused:
        return_rules.check_returnable(held, ((2, 1), (1, 2)))
    assert refused.value.code == "NOT_RETURNABLE"
    assert [d["field"] for d in refused.value.details] == ["lineas[1].cantidad"]
    # cantidadDevuelta shows what came back, whatever the lines stored
    assert [line.cantidad_devuelta for line in held.lineas] == [1, 0]


def test_counts_follow_a_request_a_release_and_a_reception():
    o = order()
    asked = return_rules.new_lines(o, ((1, 2),))
    after = return_rules.counts_held(o, asked, 1)
    assert after == (ReturnCount(linea=1, en_devolucion=2),)
    held = order(counts=after)
    assert return_rules.counts_held(held, asked, -1) == (ReturnCount(linea=1),)
    received = (ReturnLine(linea=1, producto_id=11, cantidad=2, reingresada=1, descartada=1),)
    assert return_rules.counts_received(held, received) == (
        ReturnCount(linea=1, en_devolucion=2, devuelta=2),
    )


def test_a_request_names_lines_of_the_order_once_a_reason_and_a_short_comment():
    o = order()
    made = return_rules.parse_request(
        {"lineas": [{"linea": 2, "cantidad": 1}], "motivo": "ERRONEO", "comentario": "otro"}, o
    )
    assert (made.lineas, made.motivo, made.comentario) == (((2, 1),), "ERRONEO", "otro")
    for body, field in (
        ({"lineas": [{"linea": 3, "cantidad": 1}], "motivo": "OTRO"}, "lineas[0].linea"),
        (
            {
                "lineas": [{"linea": 1, "cantidad": 1}, {"linea": 1, "cantidad": 1}],
                "motivo": "OTRO",
            },
            "lineas[1].linea",
        ),
        ({"lineas": [{"linea": 1, "cantidad": 1}], "motivo": "NO_ENTREGADO"}, "motivo"),
        ({"lineas": [{"linea": 1, "cantidad": 1}]}, "motivo"),
    ):
        with pytest.raises(Invalid) as bad:
            return_rules.parse_request(body, o)
        assert field in [d["field"] for d in bad.value.details]


def test_the_states_moves_and_who_may_make_them():
    requested, approved = a_return(), a_return("APROBADA")
    return_rules.check_move(OPERATOR, requested, "APROBADA")
    return_rules.check_move(OPERATOR, approved, "CANCELADA")
    return_rules.check_move(ANA, requested, "CANCELADA")
    with pytest.raises(Forbidden):
        return_rules.check_move(ANA, approved, "CANCELADA")
    with pytest.raises(Forbidden):
        return_rules.check_move(ANA, requested, "APROBADA")
    for ret, target in ((approved, "RECIBIDA"), (approved, "RECHAZADA"), (requested, "RECIBIDA")):
        with pytest.raises(Conflict) as refused:
            return_rules.check_move(OPERATOR, ret, target)
        assert refused.value.details == [
            {"field": "status", "message": f"cannot move from {ret.estado} to {target}"}
        ]
    assert return_rules.holds_units(requested)
    assert not return_rules.holds_units(a_return(origen="transportista"))


def test_a_reception_decides_every_line_and_its_units_add_up():
    ret = a_return("APROBADA", (3, 1))
    lines = return_rules.parse_reception(
        {
            "lineas": [
                {"linea": 2, "reingresar": 0, "descartar": 1},
                {"linea": 1, "reingresar": 2, "descartar": 1, "bodegaId": 4},
            ]
        },
        ret,
    )
    assert [(x.reingresada, x.descartada, x.bodega_id) for x in lines] == [(2, 1, 4), (0, 1, None)]
    assert return_rules.restocked(lines) == [{"productoId": 11, "bodegaId": 4, "cantidad": 2}]
    for sent in (
        [{"linea": 1, "reingresar": 3, "descartar": 0}],  # no bodegaId, and line 2 missing
        [
            {"linea": 1, "reingresar": 1, "descartar": 1, "bodegaId": 4},
            {"linea": 2, "reingresar": 0, "descartar": 1},
        ],
        [{"linea": 1, "reingresar": 3, "descartar": 0, "bodegaId": 4}],  # line 2 missing
    ):
        with pytest.raises(Invalid):
            return_rules.parse_reception({"lineas": sent}, ret)


def test_a_deleted_products_units_are_named_where_the_reception_sent_them():
    """The inventory names the restock's lines; the 409 names the reception's own fields,
    in the order the client sent its lines, and only the lines of the deleted product."""
    lines = (
        ReturnLine(linea=1, producto_id=11, cantidad=2, reingresada=2, bodega_id=1),
        ReturnLine(linea=2, producto_id=12, cantidad=1, descartada=1),
        ReturnLine(linea=3, producto_id=13, cantidad=1, reingresada=1, bodega_id=1),
    )
    body = {"lineas": [{"linea": 3}, {"linea": 2}, {"linea": 1}]}
    gone = NotFound(
        "PRODUCT_NOT_FOUND",
        "Products not found",
        details=[{"field": "lineas[1].productoId", "message": "product 13 does not exist"}],
    )
    refused = return_rules.products_deleted(body, lines, gone)
    assert refused.code == "PRODUCT_DELETED"
    assert [d["field"] for d in refused.details] == ["lineas[0].reingresar"]
    assert "product 13" in refused.details[0]["message"]
