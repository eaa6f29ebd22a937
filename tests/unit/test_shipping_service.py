"""Shipping use cases against an in-memory shipment store, with a fixed instant."""

from datetime import datetime

import pytest

from common.callers import SYSTEM as OPERATOR
from common.errors import Invalid, NotFound
from shipping import rules, service
from tests.support.memory import InMemoryShipments

BODY = {"pedidoId": 7, "tipoEnvio": "EXPRESS", "transportista": "DHL", "destino": "Lima"}
NOW = datetime(2026, 11, 22, 23, 30)


def NO_ORDER(pedido_id: int) -> None:  # noqa: N802 - stands in for the orders service
    return None


@pytest.fixture
def shipments():
    return InMemoryShipments()


def create(shipments, body, now):
    return service.create_shipment(shipments, NO_ORDER, rules.parse_shipment(body), now)


def test_create_generates_the_guide_route_and_estimate_from_one_instant(shipments):
    shipment = create(shipments, BODY, NOW)
    assert (shipment.id, shipment.status) == (1, "CREADO")
    assert shipment.guia_despecho == "EXP-20261122-000001"
    assert shipment.ruta_descripcion == "Express prioritario \u2014 Lima"
    assert shipment.fecha_estimada_entrega == "2026-11-23T23:30:00.000000"
    assert service.get_shipment(shipments, OPERATOR, 1) == shipment
    assert service.list_shipments(shipments, OPERATOR, 0, 1000, None, None).items == [shipment]


def test_an_invalid_body_stores_nothing(shipments):
    with pytest.raises(Invalid):
        create(shipments, {**BODY, "tipoEnvio": "AEREO"}, NOW)
    assert service.list_shipments(shipments, OPERATOR, 0, 1000, None, None).items == []


def test_any_state_may_follow_any_other(shipments):
    created = create(shipments, BODY, NOW)
    for status in ("ENTREGADO", "CREADO", "EN_RUTA", "EN_RUTA"):
        changed = service.change_status(shipments, created.id, status)
        assert changed == service.get_shipment(shipments, OPERATOR, created.id)
        assert vars(changed) == {**vars(created), "status": status}


def test_a_bad_status_is_refused_before_the_shipment_is_looked_up(shipments):
    with pytest.raises(Invalid):
        service.change_status(shipments, 99, "PERDIDO")
    with pytest.raises(NotFound) as err:
        service.change_status(shipments, 99, "CREADO")
    assert err.value.code == "SHIPMENT_NOT_FOUND"
