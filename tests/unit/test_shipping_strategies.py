"""Delivery strategies and shipping rules as pure units, with a fixed clock."""

from datetime import datetime, timedelta

import pytest

from common.platform.errors import Invalid
from shipping import rules
from shipping.strategies import EXPRESS, STRATEGIES, TERRESTRE, TIPOS_ENVIO, DeliveryStrategy

NOW = datetime(2026, 11, 22, 23, 30, 0, 1)


def test_terrestre_strategy():
    assert TERRESTRE.tipo == "TERRESTRE"
    assert TERRESTRE.transit == timedelta(days=5)
    assert TERRESTRE.guide_prefix == "TER"
    assert TERRESTRE.route("Lima") == "Ruta terrestre \u2014 Lima"


def test_express_strategy():
    assert EXPRESS.tipo == "EXPRESS"
    assert EXPRESS.transit == timedelta(days=1)
    assert EXPRESS.guide_prefix == "EXP"
    assert EXPRESS.route("Bogotá") == "Express prioritario \u2014 Bogotá"


def test_the_valid_tipos_are_exactly_the_strategies():
    assert TIPOS_ENVIO == ("TERRESTRE", "EXPRESS")
    assert STRATEGIES == {"TERRESTRE": TERRESTRE, "EXPRESS": EXPRESS}


def test_route_uses_an_em_dash_with_a_space_each_side():
    route = TERRESTRE.route("X")
    assert route.encode("utf-8") == b"Ruta terrestre \xe2\x80\x94 X"


@pytest.mark.parametrize(
    "strategy, expected",
    [
        (TERRESTRE, datetime(2026, 11, 27, 23, 30, 0, 1)),
        (EXPRESS, datetime(2026, 11, 23, 23, 30, 0, 1)),
    ],
)
def test_estimate_adds_the_transit_to_the_creation_instant(strategy, expected):
    assert strategy.estimated_delivery(NOW) == expected


@pytest.mark.parametrize(
    "created, strategy, expected",
    [
        (
            datetime(2026, 12, 31, 23, 59, 59, 999999),
            EXPRESS,
            datetime(2027, 1, 1, 23, 59, 59, 999999),
        ),
        (datetime(2026, 12, 31, 0, 0), TERRESTRE, datetime(2027, 1, 5, 0, 0)),
        (datetime(2026, 11, 28, 12, 0), TERRESTRE, datetime(2026, 12, 3, 12, 0)),
        (datetime(2028, 2, 28, 8, 0), EXPRESS, datetime(2028, 2, 29, 8, 0)),  # leap year
        (datetime(2027, 2, 28, 8, 0), EXPRESS, datetime(2027, 3, 1, 8, 0)),
    ],
)
def test_estimate_rolls_over_months_and_years(created, strategy, expected):
    assert strategy.estimated_delivery(created) == expected


@pytest.mark.parametrize(
    "strategy, shipment_id, expected",
    [
        (TERRESTRE, 42, "TER-20261122-000042"),
        (EXPRESS, 43, "EXP-20261122-000043"),
        (EXPRESS, 1, "EXP-20261122-000001"),
        (TERRESTRE, 999999, "TER-20261122-999999"),
        (TERRESTRE, 1234567, "TER-20261122-1234567"),  # more digits, still unique
    ],
)
def test_guide_format(strategy, shipment_id, expected):
    assert strategy.guide(NOW, shipment_id) == expected


def test_a_new_strategy_is_one_value():
    drone = DeliveryStrategy(
        tipo="DRON", guide_prefix="DRN", transit=timedelta(hours=3), route_label="Dron"
    )
    assert drone.estimated_delivery(NOW) == datetime(2026, 11, 23, 2, 30, 0, 1)
    assert drone.guide(NOW, 7) == "DRN-20261122-000007"
    assert drone.route("Quito") == "Dron \u2014 Quito"


REQUEST = {
    "pedidoId": 7,
    "tipoEnvio": "TERRESTRE",
    "transportista": "Servientrega",
    "destino": "Medellín",
}


@pytest.mark.parametrize(
    "tipo, estimate, guide, route",
    [
        (
            "TERRESTRE",
            "2026-11-27T23:30:00.000001",
            "TER-20261122-000042",
            "Ruta terrestre \u2014 Medellín",
        ),
        (
            "EXPRESS",
            "2026-11-23T23:30:00.000001",
            "EXP-20261122-000042",
            "Express prioritario \u2014 Medellín",
        ),
    ],
)
def test_new_shipment_from_a_fixed_now(tipo, estimate, guide, route):
    request = rules.parse_shipment({**REQUEST, "tipoEnvio": tipo})
    shipment = rules.created_shipment(request, 42, NOW)
    code = shipment.codigo_seguimiento  # random: tests/unit/test_tracking.py
    assert vars(shipment) == {
        "id": 42,
        "pedido_id": 7,
        "status": "CREADO",
        "tipo_envio": tipo,
        "transportista": "Servientrega",
        "guia_despecho": guide,
        "ruta_descripcion": route,
        "destino": "Medellín",
        "fecha_estimada_entrega": estimate,
        "creado_en": "2026-11-22T23:30:00.000001",
        "owner_id": None,
        # tracking: a new code, created, no events yet; its estimate is long past
        "codigo_seguimiento": code,
        "estado_seguimiento": "CREADO",
        "incidencia_detalle": None,
        "incidencia_fecha": None,
        "ultimo_evento_en": None,
        "ultimo_evento": None,
        "atraso_avisado": None,
        "incidencia": None,
        "atrasado": True,
        # parts of an order (docs/api.md#shipments-of-parts): none on the contract's
        "bodega_id": None,
        "lineas": (),
        "salida": None,
    }


def test_new_shipment_on_new_years_eve():
    request = rules.parse_shipment({**REQUEST, "tipoEnvio": "EXPRESS"})
    shipment = rules.created_shipment(request, 5, datetime(2026, 12, 31, 22, 0))
    assert shipment.creado_en == "2026-12-31T22:00:00.000000"
    assert shipment.fecha_estimada_entrega == "2027-01-01T22:00:00.000000"
    assert shipment.guia_despecho == "EXP-20261231-000005"


def test_parse_shipment_accepts_a_whole_decimal_and_ignores_generated_fields():
    request = rules.parse_shipment(
        {**REQUEST, "pedidoId": 7, "status": "ENTREGADO", "id": 99, "guiaDespecho": "X"}
    )
    assert request == rules.NewShipment(
        pedido_id=7, tipo_envio="TERRESTRE", transportista="Servientrega", destino="Medellín"
    )


@pytest.mark.parametrize("raw", ["CREADO", "ASIGNADO", "EN_RUTA", "ENTREGADO"])
def test_parse_status_accepts_the_four_states(raw):
    assert rules.parse_status(raw) == raw


@pytest.mark.parametrize("raw", [None, "", "en_ruta", "CANCELADO", " CREADO", "CREADO "])
def test_parse_status_rejects_anything_else(raw):
    with pytest.raises(Invalid) as err:
        rules.parse_status(raw)
    assert err.value.code == "VALIDATION_ERROR"
    assert [d["field"] for d in err.value.details] == ["status"]
