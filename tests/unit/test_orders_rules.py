"""Order rules as plain functions (docs/api.md#the-order)."""

from datetime import datetime
from decimal import Decimal

import pytest

from common.orders.outbox import approved_event
from common.platform.errors import Invalid
from orders import rules

VALID = {
    "userId": 7,
    "userEmail": "ana@example.com",
    "clienteNombre": "Ana Pérez",
    "total": Decimal("59.97"),
    "tipoPedido": "NACIONAL",
    "destino": "Bogotá",
    "productoId": 3,
    "cantidad": 2,
}


def test_a_valid_body_becomes_a_request():
    request = rules.parse_order(VALID)
    assert (request.user_id, request.total, request.cantidad) == (7, Decimal("59.97"), 2)


BAD = [
    ("userId", 0),
    ("userId", -1),
    ("userId", 1.5),
    ("userId", "7"),
    ("userId", True),
    ("userId", None),
    ("userEmail", "ana"),
    ("userEmail", "ana@example"),
    ("userEmail", "@example.com"),
    ("userEmail", "ana @example.com"),
    ("userEmail", ""),
    ("userEmail", 5),
    ("userEmail", None),
    ("clienteNombre", ""),
    ("clienteNombre", "  "),
    ("clienteNombre", None),
    ("total", -0.01),
    ("total", "10"),
    ("total", None),
    ("total", False),
    ("tipoPedido", "nacional"),
    ("tipoPedido", "LOCAL"),
    ("tipoPedido", None),
    ("tipoPedido", ["NACIONAL"]),
    ("destino", ""),
    ("destino", None),
    ("destino", 3),
    ("productoId", 0),
    ("productoId", "3"),
    ("productoId", 2.5),
    ("productoId", None),
    ("cantidad", 0),
    ("cantidad", -2),
    ("cantidad", 1.5),
    ("cantidad", "2"),
    ("cantidad", None),
]


@pytest.mark.parametrize("field, value", BAD)
def test_each_rule_rejects_its_field(field, value):
    with pytest.raises(Invalid) as err:
        rules.parse_order({**VALID, field: value})
    assert err.value.code == "VALIDATION_ERROR"
    assert [d["field"] for d in err.value.details] == [field]


def test_total_zero_and_integral_totals_are_valid():
    assert rules.parse_order({**VALID, "total": 0}).total == 0


def test_observaciones_describe_customs_only_for_international_orders():
    assert rules.observaciones_for("INTERNACIONAL") == (
        "Pedido internacional — requiere documentación aduanera"
    )
    assert rules.observaciones_for("NACIONAL") is None


NOW = datetime(2026, 11, 22, 14, 3, 7, 123456)


@pytest.mark.parametrize(
    "tipo, observaciones",
    [
        ("NACIONAL", None),
        ("INTERNACIONAL", "Pedido internacional — requiere documentación aduanera"),
    ],
)
def test_a_new_order_is_pending_with_its_creation_time_and_customs_note(tipo, observaciones):
    request = rules.parse_order({**VALID, "tipoPedido": tipo, "status": "ENTREGADO", "id": 9})
    order = rules.pending_order(request, 5, NOW)
    assert order == rules.Order(
        id=5,
        status="PENDIENTE",
        observaciones=observaciones,
        creado_en="2026-11-22T14:03:07.123456",
        **vars(request),
    )


def test_the_event_payload_has_exactly_the_four_fields():
    order = rules.pending_order(rules.parse_order({**VALID, "total": Decimal("1.10")}), 5, NOW)
    assert approved_event(order) == {
        "pedidoId": 5,
        "userEmail": "ana@example.com",
        "total": Decimal("1.10"),
        "tipoPedido": "NACIONAL",
    }


@pytest.mark.parametrize(
    "target, origins",
    [
        ("PENDIENTE", ()),
        ("APROBADO", ("PENDIENTE",)),
        ("EN_ENVIO", ("APROBADO",)),
        ("ENTREGADO", ("EN_ENVIO",)),
        ("CANCELADO", ("PENDIENTE", "APROBADO")),
    ],
)
def test_the_lifecycle_says_where_each_state_may_be_reached_from(target, origins):
    assert rules.moves_to(target) == origins


def test_final_states_go_nowhere():
    assert rules.NEXT["ENTREGADO"] == rules.NEXT["CANCELADO"] == ()


def test_an_invalid_transition_names_both_states():
    error = rules.invalid_transition("EN_ENVIO", "CANCELADO")
    assert error.code == "INVALID_TRANSITION"
    assert error.details == [
        {"field": "status", "message": "cannot move from EN_ENVIO to CANCELADO"}
    ]


@pytest.mark.parametrize("raw", [None, "", "aprobado", "PERDIDO", " APROBADO"])
def test_parse_status_refuses_anything_but_the_five_states(raw):
    with pytest.raises(Invalid) as err:
        rules.parse_status(raw)
    assert [d["field"] for d in err.value.details] == ["status"]
