"""Tracking (docs/api.md#tracking) against in-memory stores with fixed instants: events
forward only, deduplicated by their external id, the contract's status following them
through the same path as a PATCH; carriers' signed events; the public view; the late
check."""

from datetime import datetime, timedelta

import pytest

from common.http.readers import json_object_of
from common.identity.callers import CUSTOMER, Caller
from common.identity.callers import SYSTEM as OPERATOR
from common.platform import jsonio
from common.platform.errors import Forbidden, Invalid, NotFound, Unauthenticated
from shipping import carriers, rules, service, tracking
from tests.support.carriers import signed as carrier_headers
from tests.support.memory import InMemoryCarriers, InMemoryLookups, InMemoryShipments

NOW = datetime(2026, 11, 22, 10, 0)
BODY = {"pedidoId": 7, "tipoEnvio": "TERRESTRE", "transportista": "Chilexpress", "destino": "Lima"}


@pytest.fixture
def shipments():
    return InMemoryShipments()


def made(shipments, body=BODY, owner=42):
    return service.create_shipment(shipments, lambda _: owner, rules.parse_shipment(body), NOW)


def at(minutes: int) -> str:
    return (NOW + timedelta(minutes=minutes)).isoformat() + "Z"


def event(shipments, shipment_id, estado, minutes=None, **fields):
    body = {"estado": estado, **fields}
    if minutes is not None:
        body["fecha"] = at(minutes)
    new = tracking.parse_event(body, NOW + timedelta(hours=1))
    return service.operator_event(shipments, OPERATOR, shipment_id, new, NOW + timedelta(hours=1))


def state(shipments, shipment_id):
    shipment = shipments.get(shipment_id)
    return shipment.estado_seguimiento, shipment.status


def test_a_new_shipment_has_a_random_code_and_is_created_in_tracking_terms(shipments):
    first, second = made(shipments), made(shipments)
    for shipment in (first, second):
        assert len(shipment.codigo_seguimiento) == 16
        assert set(shipment.codigo_seguimiento) <= set(tracking.CODE_ALPHABET)
        assert (shipment.estado_seguimiento, shipment.incidencia) == ("CREADO", None)
    assert first.codigo_seguimiento != second.codigo_seguimiento


def test_events_move_the_tracking_state_forward_only_and_the_status_follows(shipments):
    shipment = made(shipments)
    event(shipments, shipment.id, "ASIGNADO", 1)
    assert state(shipments, shipment.id) == ("ASIGNADO", "ASIGNADO")
    event(shipments, shipment.id, "EN_REPARTO", 3)
    assert state(shipments, shipment.id) == ("EN_REPARTO", "EN_RUTA")
    event(shipments, shipment.id, "EN_RUTA", 4)  # a lower rank, newer: kept, moves nothing
    assert state(shipments, shipment.id) == ("EN_REPARTO", "EN_RUTA")
    event(shipments, shipment.id, "INTENTO_FALLIDO", 5)  # the same rank: it moves
    assert state(shipments, shipment.id) == ("INTENTO_FALLIDO", "EN_RUTA")
    event(shipments, shipment.id, "ENTREGADO", 2)  # higher, but older than the newest
    assert state(shipments, shipment.id) == ("INTENTO_FALLIDO", "EN_RUTA")
    event(shipments, shipment.id, "ENTREGADO", 6)
    assert state(shipments, shipment.id) == ("ENTREGADO", "ENTREGADO")
    event(shipments, shipment.id, "DEVUELTO", 7)  # nothing moves a delivered parcel
    assert state(shipments, shipment.id) == ("ENTREGADO", "ENTREGADO")
    kept = service.shipment_events(shipments, OPERATOR, shipment.id)
    assert [e.estado for e in kept] == [
        "ASIGNADO",
        "ENTREGADO",
        "EN_REPARTO",
        "EN_RUTA",
        "INTENTO_FALLIDO",
        "ENTREGADO",
        "DEVUELTO",
    ]  # every event kept, oldest fecha first
    history = service.shipment_history(shipments, OPERATOR, shipment.id)
    assert [(e.status, e.rol) for e in history] == [
        ("CREADO", "operator"),
        ("ASIGNADO", "operator"),
        ("EN_RUTA", "operator"),
        ("ENTREGADO", "operator"),
    ]


def test_a_returned_parcel_is_on_its_way_back_and_final(shipments):
    shipment = made(shipments)
    event(shipments, shipment.id, "DEVUELTO", 1)
    assert state(shipments, shipment.id) == ("DEVUELTO", "EN_RUTA")
    event(shipments, shipment.id, "ENTREGADO", 2)
    assert state(shipments, shipment.id) == ("DEVUELTO", "EN_RUTA")


def test_an_incident_is_a_flag_and_moves_no_rank(shipments):
    shipment = made(shipments)
    event(shipments, shipment.id, "EN_RUTA", 1)
    event(shipments, shipment.id, "INCIDENCIA", 2, detalle="Dirección incompleta")
    current = shipments.get(shipment.id)
    assert (current.estado_seguimiento, current.status) == ("EN_RUTA", "EN_RUTA")
    assert (current.incidencia.detalle, current.incidencia.fecha) == (
        "Dirección incompleta",
        "2026-11-22T10:02:00.000000",
    )


def test_the_same_external_id_again_answers_the_first_event_and_adds_nothing(shipments):
    shipment = made(shipments)
    first = event(shipments, shipment.id, "EN_RUTA", 1, idExterno="carrier-1")
    again = event(shipments, shipment.id, "ENTREGADO", 2, idExterno="carrier-1")
    assert (first.repeated, again.repeated) == (False, True)
    assert again.event == first.event
    assert state(shipments, shipment.id) == ("EN_RUTA", "EN_RUTA")
    assert len(service.shipment_events(shipments, OPERATOR, shipment.id)) == 1


def test_a_patch_sets_the_tracking_state_and_events_go_on_from_it(shipments):
    shipment = made(shipments)
    service.change_status(shipments, OPERATOR, shipment.id, "EN_RUTA", NOW)
    assert state(shipments, shipment.id) == ("EN_RUTA", "EN_RUTA")
    event(shipments, shipment.id, "ASIGNADO", 1)
    assert state(shipments, shipment.id) == ("EN_RUTA", "EN_RUTA")
    service.change_status(shipments, OPERATOR, shipment.id, "CREADO", NOW)  # a PATCH may go back
    event(shipments, shipment.id, "ASIGNADO", 2)
    assert state(shipments, shipment.id) == ("ASIGNADO", "ASIGNADO")


def test_events_are_refused_when_malformed_and_customers_may_only_read_their_own(shipments):
    shipment = made(shipments)
    for body in (
        {"estado": "PERDIDO"},
        {"estado": "CREADO"},
        {"estado": "EN_RUTA", "fecha": "ayer"},
        {"estado": "EN_RUTA", "fecha": "0001-01-01T00:00:00+01:00"},  # before the year 1 in UTC
        {"estado": "EN_RUTA", "fecha": 20261201},
        {"estado": "EN_RUTA", "ubicacion": "x" * 81},
        {"estado": "EN_RUTA", "detalle": "x" * 501},
        {"estado": "EN_RUTA", "idExterno": 7},
    ):
        with pytest.raises(Invalid):
            tracking.parse_event(body, NOW)
    with pytest.raises(Invalid):  # a carrier's webhook-id is its key: bounded as idExterno
        tracking.parse_event({"estado": "EN_RUTA"}, NOW, id_externo="x" * 256)
    owner, stranger = Caller("ana", CUSTOMER, 42), Caller("luis", CUSTOMER, 43)
    with pytest.raises(Forbidden):
        service.operator_event(
            shipments, owner, shipment.id, tracking.parse_event({"estado": "EN_RUTA"}, NOW), NOW
        )
    assert service.shipment_events(shipments, owner, shipment.id) == []
    with pytest.raises(NotFound):
        service.shipment_events(shipments, stranger, shipment.id)


def test_the_public_view_holds_nothing_personal_and_unknown_codes_answer_alike(shipments):
    shipment = made(shipments)
    event(shipments, shipment.id, "EN_RUTA", 1, ubicacion="Santiago", detalle="Vecino: Juan")
    lookups = InMemoryLookups()
    view = service.public_tracking(shipments, lookups, "203.0.113.9", shipment.codigo_seguimiento)
    assert set(view) == {
        "codigoSeguimiento",
        "estadoSeguimiento",
        "status",
        "tipoEnvio",
        "transportista",
        "fechaEstimadaEntrega",
        "atrasado",
        "eventos",
    }
    assert view["eventos"] == [
        {"estado": "EN_RUTA", "fecha": "2026-11-22T10:01:00.000000", "ubicacion": "Santiago"}
    ]
    assert "Juan" not in jsonio.dumps(view) and "Lima" not in jsonio.dumps(view)
    answers = set()
    for code in ("0" * 16, "short", "x" * 5000, "ÑÑÑ", shipment.codigo_seguimiento.lower()):
        with pytest.raises(NotFound) as refused:
            service.public_tracking(shipments, lookups, "203.0.113.9", code)
        answers.add((refused.value.code, refused.value.message))
    assert answers == {("SHIPMENT_NOT_FOUND", "No shipment has this tracking code")}
    assert len(lookups.taken) == 6  # unknown codes count too
    assert tracking.lookup_code("x" * 5000) == tracking.lookup_code("short") == tracking.NO_CODE


def test_a_carriers_signed_event_moves_its_own_shipments_only(shipments):
    store = InMemoryCarriers()
    chile = service.create_carrier(
        store, carriers.parse_carrier({"codigo": "CHX", "nombre": "Chilexpress"}), NOW
    )
    other = service.create_carrier(
        store, carriers.parse_carrier({"codigo": "DHL", "nombre": "DHL"}), NOW
    )
    assert chile.secreto.startswith("whsec_") and chile.secreto != other.secreto
    mine = made(shipments)
    theirs = made(shipments, {**BODY, "transportista": "Starken"})

    def push(secret, codigo, body, msg_id="msg_1", when=None):
        raw = jsonio.dumps(body).encode()
        signed = service.Signed(raw, carrier_headers(secret, raw, msg_id, when), json_object_of)
        return service.carrier_event(store, shipments, codigo, signed, datetime.now())

    by_code = {"codigoSeguimiento": mine.codigo_seguimiento, "estado": "EN_RUTA", "fecha": at(1)}
    moved = push(chile.secreto, "CHX", by_code, msg_id="m1")
    assert (moved.event.id_externo, moved.repeated) == ("m1", False)
    assert state(shipments, mine.id) == ("EN_RUTA", "EN_RUTA")
    assert push(chile.secreto, "CHX", by_code, msg_id="m1").repeated  # a carrier's retry
    by_guide = {"guiaDespecho": mine.guia_despecho, "estado": "ENTREGADO", "fecha": at(2)}
    push(chile.secreto, "CHX", by_guide, msg_id="m2")
    assert state(shipments, mine.id) == ("ENTREGADO", "ENTREGADO")
    history = service.shipment_history(shipments, OPERATOR, mine.id)
    assert [e.rol for e in history] == ["operator", "system", "system"]
    for codigo, secret, body, when in (
        ("CHX", other.secreto, by_code, None),  # another carrier's secret
        ("NOPE", chile.secreto, by_code, None),  # no such carrier
        ("CHX", chile.secreto, by_code, datetime.now() - timedelta(minutes=6)),
    ):
        with pytest.raises(Unauthenticated):
            push(secret, codigo, body, when=when)
    for body in (
        {**by_code, "codigoSeguimiento": theirs.codigo_seguimiento},  # not its shipment
        {**by_guide, "guiaDespecho": "TER-20261122-999999"},
    ):
        with pytest.raises(NotFound):
            push(chile.secreto, "CHX", body, msg_id="m3")
    with pytest.raises(Invalid):
        push(chile.secreto, "CHX", {"estado": "EN_RUTA"}, msg_id="m4")


def test_a_carriers_code_is_unique_and_checked():
    store = InMemoryCarriers()
    service.create_carrier(store, carriers.parse_carrier({"codigo": "CHX", "nombre": "A"}), NOW)
    with pytest.raises(Exception) as taken:
        service.create_carrier(store, carriers.parse_carrier({"codigo": "CHX", "nombre": "B"}), NOW)
    assert taken.value.code == "DUPLICATE_CODE"
    for body in (
        {"codigo": "chx", "nombre": "A"},
        {"codigo": "A" * 33, "nombre": "A"},
        {"codigo": "X"},
    ):
        with pytest.raises(Invalid):
            carriers.parse_carrier(body)


def test_the_late_check_marks_each_late_shipment_once_and_never_a_delivered_one(shipments):
    express = {**BODY, "tipoEnvio": "EXPRESS"}  # due in a day; TERRESTRE in five
    late, delivered, on_time = made(shipments, express), made(shipments, express), made(shipments)
    service.change_status(shipments, OPERATOR, delivered.id, "ENTREGADO", NOW)
    after_estimate = NOW + timedelta(days=1, minutes=1)
    assert service.check_late(shipments, after_estimate) == 1
    assert shipments.get(late.id).atraso_avisado == "2026-11-23T10:01:00.000000"
    assert shipments.get(on_time.id).atraso_avisado is None
    assert service.check_late(shipments, after_estimate + timedelta(minutes=1)) == 0
    assert service.check_late(shipments, NOW + timedelta(days=5, minutes=1)) == 1
    assert shipments.get(delivered.id).atraso_avisado is None
