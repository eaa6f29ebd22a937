"""Tracking through chalice.test against the emulator's DynamoDB and KMS (docs/api.md#tracking):
codes, events forward only and deduplicated, the status following them, carriers' signed
events, the public look-up and its limit, what recording an event costs."""

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import boto3

from common.identity.callers import SYSTEM as OPERATOR
from common.platform import jsonio
from common.platform.settings import Cloud, Tokens
from infra.dev.tokens import local_token
from shipping import rules, service
from shipping.repository import ShipmentRepository
from tests.support.api import body, error_code
from tests.support.carriers import signed
from tests.support.metering import item_bytes, metered

SHIPMENT = {"pedidoId": 7, "tipoEnvio": "EXPRESS", "transportista": "Olva", "destino": "Cusco"}
PUBLIC_FIELDS = {
    "codigoSeguimiento",
    "estadoSeguimiento",
    "status",
    "tipoEnvio",
    "transportista",
    "fechaEstimadaEntrega",
    "atrasado",
    "eventos",
}


def created(api, **fields):
    response = api.post("/api/envios", {**SHIPMENT, **fields})
    assert response.status_code == 201, response.body
    return body(response)


def post_event(api, shipment_id, **fields):
    return api.post(f"/api/envios/{shipment_id}/eventos", fields)


def current(api, shipment_id):
    return body(api.get(f"/api/envios/{shipment_id}"))


def test_a_shipment_answers_its_tracking_and_its_events_move_it_forward(api):
    shipment = created(api)
    assert len(shipment["codigoSeguimiento"]) == 16
    assert (shipment["estadoSeguimiento"], shipment["atrasado"], shipment["incidencia"]) == (
        "CREADO",
        False,
        None,
    )
    first = post_event(api, shipment["id"], estado="EN_RUTA", fecha="2026-12-01T10:00:00-03:00")
    assert first.status_code == 201, first.body
    event = body(first)
    assert set(event) == {
        "id",
        "estado",
        "fecha",
        "ubicacion",
        "detalle",
        "idExterno",
        "registradoEn",
    }
    assert event["fecha"] == "2026-12-01T13:00:00.000000"  # in UTC, the platform's format
    late = post_event(api, shipment["id"], estado="ASIGNADO", fecha="2026-12-01T14:00:00Z")
    assert late.status_code == 201  # kept, moves nothing
    delivered = post_event(api, shipment["id"], estado="ENTREGADO", idExterno="e-1")
    again = post_event(api, shipment["id"], estado="ENTREGADO", idExterno="e-1")
    assert (delivered.status_code, again.status_code) == (201, 200)
    assert body(again) == body(delivered)
    after = current(api, shipment["id"])
    assert (after["estadoSeguimiento"], after["status"]) == ("ENTREGADO", "ENTREGADO")
    events = body(api.get(f"/api/envios/{shipment['id']}/eventos"))
    assert [e["estado"] for e in events] == ["EN_RUTA", "ASIGNADO", "ENTREGADO"]
    history = body(api.get(f"/api/envios/{shipment['id']}/historial"))
    assert [(h["status"], h["rol"]) for h in history] == [
        ("CREADO", "operator"),
        ("EN_RUTA", "operator"),
        ("ENTREGADO", "operator"),
    ]
    incident = post_event(api, shipment["id"], estado="INCIDENCIA", detalle="Caja abollada")
    assert incident.status_code == 201
    assert current(api, shipment["id"])["incidencia"]["detalle"] == "Caja abollada"


def test_a_patch_sets_the_tracking_state_too(api):
    shipment = created(api)
    patched = body(api.patch(f"/api/envios/{shipment['id']}/status?status=EN_RUTA"))
    assert (patched["status"], patched["estadoSeguimiento"]) == ("EN_RUTA", "EN_RUTA")


def test_events_bad_input_is_400_and_customers_read_their_own_only(api, gateway):
    shipment = created(api)
    for fields in ({"estado": "VOLANDO"}, {"estado": "EN_RUTA", "fecha": "mañana"}):
        refused = post_event(api, shipment["id"], **fields)
        assert (refused.status_code, error_code(refused)) == (400, "VALIDATION_ERROR")
    assert api.get("/api/envios/x/eventos").status_code == 400
    assert post_event(api, 999999, estado="EN_RUTA").status_code == 404
    customer = gateway()
    customer.token = local_token(Tokens.from_env(), "ana@example.com", "customer", 7)
    assert post_event(customer, shipment["id"], estado="EN_RUTA").status_code == 403
    assert customer.get(f"/api/envios/{shipment['id']}/eventos").status_code == 404  # not theirs
    assert customer.post("/api/transportistas", {"codigo": "X", "nombre": "X"}).status_code == 403


def test_concurrent_events_each_count_once_and_none_is_lost(api):
    shipment = created(api)
    base = datetime(2026, 12, 1, 10, 0)
    states = ["ASIGNADO", "EN_RUTA", "EN_REPARTO", "INTENTO_FALLIDO", "EN_REPARTO", "ENTREGADO"]

    def send(n: int):
        fecha = (base + timedelta(minutes=n)).isoformat() + "Z"
        estado = states[n % len(states)]
        return post_event(api, shipment["id"], estado=estado, fecha=fecha, idExterno=f"x{n % 8}")

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(send, range(16)))
    assert sorted(a.status_code for a in answers).count(201) == 8  # one per external id
    assert {a.status_code for a in answers} <= {200, 201}
    events = body(api.get(f"/api/envios/{shipment['id']}/eventos"))
    assert len(events) == 8
    assert len({body(a)["id"] for a in answers}) == 8  # repeats answer the first
    history = body(api.get(f"/api/envios/{shipment['id']}/historial"))
    statuses = [h["status"] for h in history]
    assert len(statuses) == len(set(statuses))  # forward only: no status entered twice


def push(api, codigo, secret, payload, msg_id="msg-1", **signing):
    raw = jsonio.dumps(payload).encode()
    headers = signed(secret, raw, msg_id, **signing)
    return api.post(f"/api/transportistas/{codigo}/eventos", raw=raw, token=None, headers=headers)


def test_a_carrier_pushes_signed_events_for_its_own_shipments(api):
    made = api.post("/api/transportistas", {"codigo": "OLVA", "nombre": "Olva Courier"})
    assert made.status_code == 201, made.body
    carrier = body(made)
    assert set(carrier) == {"id", "codigo", "nombre", "secreto", "creadoEn"}
    assert carrier["secreto"].startswith("whsec_")
    again = api.post("/api/transportistas", {"codigo": "OLVA", "nombre": "Otra"})
    assert (again.status_code, error_code(again)) == (409, "DUPLICATE_CODE")
    stored = boto3.client("dynamodb").get_item(
        TableName="CarriersTable", Key={"codigo": {"S": "OLVA"}}
    )["Item"]
    assert stored["secreto"]["S"].startswith("kms:")  # sealed, never plain
    secret = carrier["secreto"]
    mine, theirs = created(api), created(api, transportista="Shalom")
    code = {"codigoSeguimiento": mine["codigoSeguimiento"], "estado": "EN_RUTA"}
    accepted = push(api, "OLVA", secret, code, "m-1")
    assert accepted.status_code == 202, accepted.body
    assert set(body(accepted)) == {"id"}
    repeat = push(api, "OLVA", secret, code, "m-1")
    assert (repeat.status_code, body(repeat)) == (202, body(accepted))
    guide = {"guiaDespecho": mine["guiaDespecho"], "estado": "ENTREGADO"}
    assert push(api, "OLVA", secret, guide, "m-2").status_code == 202
    assert current(api, mine["id"])["status"] == "ENTREGADO"
    history = body(api.get(f"/api/envios/{mine['id']}/historial"))
    assert [h["rol"] for h in history] == ["operator", "system", "system"]
    events = body(api.get(f"/api/envios/{mine['id']}/eventos"))
    assert [e["idExterno"] for e in events] == ["m-1", "m-2"]
    old = datetime.now() - timedelta(minutes=6)
    for codigo, key, payload, signing in (
        ("OLVA", "whsec_" + "A" * 32, code, {}),
        ("NADIE", secret, code, {}),
        ("OLVA", secret, code, {"when": old}),
    ):
        refused = push(api, codigo, key, payload, "m-3", **signing)
        assert refused.status_code == 401, refused.body
    unsigned = api.post("/api/transportistas/OLVA/eventos", code, token=None)
    assert unsigned.status_code == 401
    other = push(api, "OLVA", secret, {**code, "codigoSeguimiento": theirs["codigoSeguimiento"]})
    assert (other.status_code, error_code(other)) == (404, "SHIPMENT_NOT_FOUND")
    assert len(body(api.get(f"/api/envios/{mine['id']}/eventos"))) == 2  # nothing more kept


def test_the_public_look_up_shows_only_its_fields_and_is_limited_per_address(api):
    shipment = created(api)
    post_event(api, shipment["id"], estado="EN_RUTA", ubicacion="Lima", detalle="Portero: Raúl")
    found = api.get(f"/api/seguimiento/{shipment['codigoSeguimiento']}", token=None)
    assert found.status_code == 200, found.body
    view = body(found)
    assert set(view) == PUBLIC_FIELDS
    assert set(view["eventos"][0]) == {"estado", "fecha", "ubicacion"}
    assert "Raúl" not in found.body.decode() and "Cusco" not in found.body.decode()
    assert found.headers["Cache-Control"] == "no-store"
    unknown = {
        api.get(f"/api/seguimiento/{code}", token=None).body
        for code in ("ZZZZZZZZZZZZZZZZ", "abc", "%C3%91" * 40)
    }
    assert len(unknown) == 1 and b"SHIPMENT_NOT_FOUND" in unknown.pop()
    answers = [api.get(f"/api/seguimiento/{code}", token=None) for code in ["X"] * 56]
    assert {a.status_code for a in answers} == {404}  # 60 in the minute so far
    limited = api.get(f"/api/seguimiento/{shipment['codigoSeguimiento']}", token=None)
    assert (limited.status_code, error_code(limited)) == (429, "TOO_MANY_LOOKUPS")
    assert int(limited.headers["Retry-After"]) >= 1


def test_recording_an_event_costs_the_same_whatever_the_history(api):
    """One read and one transaction of two items, whether the shipment has no history or
    the most it keeps, and however many events it has: its item is bounded."""
    short, long = created(api), created(api, destino="€" * 1000)
    for n in range(130):
        api.patch(f"/api/envios/{long['id']}/status?status={('ASIGNADO', 'CREADO')[n % 2]}")
    for _ in range(30):
        post_event(api, long["id"], estado="INCIDENCIA", detalle="€" * 500)
    costs = []
    for shipment in (short, long):
        with metered() as meter:
            response = post_event(api, shipment["id"], estado="INCIDENCIA", detalle="€" * 500)
        assert response.status_code == 201
        costs.append((dict(meter.operations), meter.write_units, meter.read_units))
    assert costs[0] == costs[1] == ({"GetItem": 1, "TransactWriteItems": 1}, 4, 1)
    item = boto3.client("dynamodb").get_item(
        TableName="ShipmentsTable", Key={"id": {"N": str(long["id"])}}
    )
    # the largest a shipment's item gets: its address and route at their longest, its
    # kept history, an incident's words and the last event's at theirs
    assert item_bytes(item["Item"]) < 16 * 1024
    assert len(item["Item"]["historial"]["L"]) <= 119


def test_the_late_check_marks_a_late_shipment_once(tables):
    shipments = ShipmentRepository(Cloud.from_env())
    made, delivered = (
        shipments.add(
            rules.created_shipment(
                rules.parse_shipment(SHIPMENT), shipments.next_id(), datetime(2026, 1, 1)
            )
        )
        for _ in range(2)
    )
    service.change_status(shipments, OPERATOR, delivered.id, "ENTREGADO", datetime(2026, 1, 1))
    now = datetime(2026, 1, 2, 0, 1)  # past both estimates (EXPRESS: a day)
    assert service.check_late(shipments, now) == 1
    assert shipments.get(made.id).atraso_avisado == "2026-01-02T00:01:00.000000"
    assert shipments.get(delivered.id).atraso_avisado is None
    assert service.check_late(shipments, now) == 0
    assert shipments.due("9999", 10) == []  # both left the check
