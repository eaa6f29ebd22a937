"""Shipping use cases against an in-memory shipment store, with a fixed instant."""

from datetime import datetime

import pytest

from common.identity.callers import SYSTEM as OPERATOR
from common.platform.errors import Invalid, NotFound
from shipping import rules, service
from tests.support.memory import InMemoryShipments

BODY = {"pedidoId": 7, "tipoEnvio": "EXPRESS", "transportista": "DHL", "destino": "Lima"}
NOW = datetime(2026, 11, 22, 23, 30)
LATER = datetime(2026, 11, 23, 8, 0)


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


def test_any_state_may_follow_any_other_and_each_change_is_in_the_history(shipments):
    created = create(shipments, BODY, NOW)
    for status in ("ENTREGADO", "CREADO", "EN_RUTA", "EN_RUTA"):
        changed = service.change_status(shipments, OPERATOR, created.id, status, LATER)
        assert changed == service.get_shipment(shipments, OPERATOR, created.id)
        # the tracking state follows a PATCH; its estimate passed, it is late until delivered
        assert vars(changed) == {
            **vars(created),
            "status": status,
            "estado_seguimiento": status,
            "atrasado": status != "ENTREGADO",
        }
    history = service.shipment_history(shipments, OPERATOR, created.id)
    # the creation, then each change; the same-state PATCH added nothing
    assert [(e.status, e.fecha, e.rol) for e in history] == [
        ("CREADO", "2026-11-22T23:30:00.000000", "operator"),
        ("ENTREGADO", "2026-11-23T08:00:00.000000", "operator"),
        ("CREADO", "2026-11-23T08:00:00.000000", "operator"),
        ("EN_RUTA", "2026-11-23T08:00:00.000000", "operator"),
    ]


def test_a_history_keeps_its_creation_and_the_99_newest_changes(shipments):
    created = create(shipments, BODY, NOW)
    for n in range(150):
        service.change_status(
            shipments, OPERATOR, created.id, ("EN_RUTA", "ASIGNADO")[n % 2], LATER
        )
    history = service.shipment_history(shipments, OPERATOR, created.id)
    assert len(history) == 100 and history[0].status == "CREADO"
    assert history[-1].status == "ASIGNADO"  # the 150th change


def test_a_bad_status_is_refused_before_the_shipment_is_looked_up(shipments):
    with pytest.raises(Invalid):
        service.change_status(shipments, OPERATOR, 99, "PERDIDO", LATER)
    with pytest.raises(NotFound) as err:
        service.change_status(shipments, OPERATOR, 99, "CREADO", LATER)
    assert err.value.code == "SHIPMENT_NOT_FOUND"
    with pytest.raises(NotFound):
        service.shipment_history(shipments, OPERATOR, 99)
