"""Shipping routes through chalice.test (docs/api.md#shipping)."""

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import pytest

from common.platform import jsonio
from common.platform.clock import utcnow
from common.platform.settings import Cloud
from tests.support.api import body, error_code

SHIPMENT = {
    "pedidoId": 7,
    "tipoEnvio": "TERRESTRE",
    "transportista": "Servientrega",
    "destino": "Medellín",
}
FIELDS = {
    "id",
    "pedidoId",
    "status",
    "tipoEnvio",
    "transportista",
    "guiaDespecho",
    "rutaDescripcion",
    "destino",
    "fechaEstimadaEntrega",
    "creadoEn",
    # tracking (tests/integration/test_tracking_routes.py)
    "codigoSeguimiento",
    "estadoSeguimiento",
    "incidencia",
    "atrasado",
}
STATUSES = ["CREADO", "ASIGNADO", "EN_RUTA", "ENTREGADO"]
ISO = "%Y-%m-%dT%H:%M:%S.%f"


def create(api, **overrides):
    response = api.post("/api/envios", {**SHIPMENT, **overrides})
    assert response.status_code == 201, response.body
    return body(response)


def moved(shipment, status, **changed):
    """The shipment as a PATCH to `status` leaves it: its tracking state follows."""
    return {**shipment, "status": status, "estadoSeguimiento": status, **changed}


def patch_status(api, shipment_id, query):
    return api.patch(f"/api/envios/{shipment_id}/status{query}")


def parse(moment: str) -> datetime:
    assert len(moment) == 26, moment  # UTC, no offset, microseconds
    return datetime.strptime(moment, ISO)


# --- create ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tipo, prefix, route, days",
    [
        ("TERRESTRE", "TER", "Ruta terrestre \u2014 Medellín", 5),
        ("EXPRESS", "EXP", "Express prioritario \u2014 Medellín", 1),
    ],
)
def test_create_returns_the_generated_shipment(api, tipo, prefix, route, days):
    before = utcnow()
    shipment = create(api, tipoEnvio=tipo)
    after = utcnow()

    assert set(shipment) == FIELDS
    assert isinstance(shipment["id"], int) and shipment["id"] > 0
    created_at = parse(shipment["creadoEn"])
    assert before <= created_at <= after
    assert parse(shipment["fechaEstimadaEntrega"]) - created_at == timedelta(days=days)
    assert shipment == {
        **SHIPMENT,
        "id": shipment["id"],
        "status": "CREADO",
        "tipoEnvio": tipo,
        "guiaDespecho": f"{prefix}-{created_at:%Y%m%d}-{shipment['id']:06d}",
        "rutaDescripcion": route,
        "fechaEstimadaEntrega": shipment["fechaEstimadaEntrega"],
        "creadoEn": shipment["creadoEn"],
        "codigoSeguimiento": shipment["codigoSeguimiento"],
        "estadoSeguimiento": "CREADO",
        "incidencia": None,
        "atrasado": False,
    }
    assert body(api.get(f"/api/envios/{shipment['id']}")) == shipment


def test_client_sent_generated_fields_are_ignored(api):
    shipment = create(
        api,
        id=999,
        status="ENTREGADO",
        guiaDespecho="FAKE-1",
        rutaDescripcion="Por aire",
        fechaEstimadaEntrega="2000-01-01T00:00:00.000000",
        creadoEn="2000-01-01T00:00:00.000000",
    )
    assert shipment["id"] != 999
    assert shipment["status"] == "CREADO"
    assert shipment["guiaDespecho"].startswith("TER-")
    assert shipment["rutaDescripcion"] == "Ruta terrestre \u2014 Medellín"
    assert not shipment["creadoEn"].startswith("2000")
    assert parse(shipment["fechaEstimadaEntrega"]) - parse(shipment["creadoEn"]) == timedelta(5)


def test_unknown_fields_are_ignored(api):
    shipment = create(api, color="rojo", peso=3)
    assert set(shipment) == FIELDS


def test_a_whole_number_written_with_a_fraction_is_accepted(api):
    assert create(api, pedidoId=12.0)["pedidoId"] == 12


def test_pedido_id_is_not_checked_against_orders(api):
    assert create(api, pedidoId=10**18)["pedidoId"] == 10**18


@pytest.mark.parametrize("notation", ["1E+50", "1e19", "9223372036854775808", "9" * 126])
def test_a_pedido_id_no_order_can_have_is_refused_whatever_its_notation(api, notation):
    raw = jsonio.dumps({**SHIPMENT, "pedidoId": "HUGE"}).replace('"HUGE"', notation)
    response = api.post("/api/envios", raw=raw)
    assert response.status_code == 400, response.body
    [detail] = body(response)["details"]
    assert detail == {
        "field": "pedidoId",
        "message": "must be an integer from 1 to 9223372036854775807",
    }
    assert body(api.get("/api/envios")) == []


@pytest.mark.parametrize("pedido_id", [2**63 - 1, 10**18, 1])
def test_a_shipment_of_any_accepted_pedido_id_is_found_by_it(api, pedido_id):
    shipment = create(api, pedidoId=pedido_id)
    found = api.get(f"/api/envios?pedidoId={pedido_id}")
    assert found.status_code == 200 and body(found) == [shipment]


def test_any_content_type_is_read_as_json(api):
    response = api.post("/api/envios", SHIPMENT, headers={"Content-Type": "text/plain"})
    assert response.status_code == 201


@pytest.mark.parametrize(
    "field, value",
    [
        ("pedidoId", None),
        ("pedidoId", 0),
        ("pedidoId", -1),
        ("pedidoId", 1.5),
        ("pedidoId", "7"),
        ("pedidoId", True),
        ("pedidoId", False),
        ("pedidoId", 10**40),
        ("pedidoId", [7]),
        ("tipoEnvio", None),
        ("tipoEnvio", ""),
        ("tipoEnvio", "terrestre"),
        ("tipoEnvio", "Express"),
        ("tipoEnvio", "AEREO"),
        ("tipoEnvio", " TERRESTRE"),
        ("tipoEnvio", 1),
        ("tipoEnvio", True),
        ("transportista", None),
        ("transportista", ""),
        ("transportista", "   "),
        ("transportista", 5),
        ("transportista", ["DHL"]),
        ("transportista", "x" * 1001),
        ("destino", None),
        ("destino", ""),
        ("destino", "\t\n"),
        ("destino", 5),
        ("destino", {"ciudad": "Lima"}),
    ],
)
def test_invalid_fields_are_rejected_and_nothing_is_saved(api, field, value):
    response = api.post("/api/envios", {**SHIPMENT, field: value})
    assert response.status_code == 400
    assert error_code(response) == "VALIDATION_ERROR"
    assert [d["field"] for d in body(response)["details"]] == [field]
    assert body(api.get("/api/envios")) == []


@pytest.mark.parametrize("field", sorted(SHIPMENT))
def test_each_field_is_required(api, field):
    sent = {k: v for k, v in SHIPMENT.items() if k != field}
    response = api.post("/api/envios", sent)
    assert response.status_code == 400
    assert [d["field"] for d in body(response)["details"]] == [field]
    assert body(api.get("/api/envios")) == []


def test_every_problem_is_reported_at_once(api):
    response = api.post("/api/envios", {"tipoEnvio": "AEREO", "destino": ""})
    assert response.status_code == 400
    assert {d["field"] for d in body(response)["details"]} == {
        "pedidoId",
        "tipoEnvio",
        "transportista",
        "destino",
    }


@pytest.mark.parametrize("raw", [b"{not json", b"", b"[]", b"42", b"null"])
def test_bodies_that_are_not_a_json_object_get_400(api, raw):
    response = api.post("/api/envios", raw=raw)
    assert response.status_code == 400 and error_code(response) == "INVALID_JSON"
    assert body(api.get("/api/envios")) == []


def test_guides_and_ids_are_unique_across_creates(api):
    shipments = [create(api, tipoEnvio=("TERRESTRE", "EXPRESS")[i % 2]) for i in range(6)]
    with ThreadPoolExecutor(6) as pool:
        shipments += list(pool.map(lambda _: create(api), range(6)))
    guides = [s["guiaDespecho"] for s in shipments]
    assert len(set(guides)) == len(guides) == 12
    assert len({s["id"] for s in shipments}) == 12
    for shipment in shipments:
        assert shipment["guiaDespecho"].endswith(f"-{shipment['id']:06d}")


# --- read -----------------------------------------------------------------------------


def test_list_is_empty_then_holds_every_shipment_sorted_by_id(api):
    assert body(api.get("/api/envios")) == []
    created = [create(api, pedidoId=i + 1) for i in range(3)]
    listed = body(api.get("/api/envios"))
    assert listed == sorted(created, key=lambda s: s["id"])


@pytest.mark.parametrize("raw_id", ["424242", "0", "-1", "9" * 30])
def test_unknown_ids_get_404(api, raw_id):
    create(api)
    response = api.get(f"/api/envios/{raw_id}")
    assert response.status_code == 404 and error_code(response) == "SHIPMENT_NOT_FOUND"


@pytest.mark.parametrize("raw_id", ["abc", "1.5", "1e3"])
def test_non_numeric_ids_get_400(api, raw_id):
    response = api.get(f"/api/envios/{raw_id}")
    assert response.status_code == 400 and error_code(response) == "INVALID_ID"


def test_shipping_needs_a_token(api):
    for response in (
        api.get("/api/envios", token=None),
        api.post("/api/envios", SHIPMENT, token=None),
        api.patch("/api/envios/1/status?status=CREADO", token=None),
    ):
        assert response.status_code == 401
    assert body(api.get("/api/envios")) == []


# --- status ---------------------------------------------------------------------------


@pytest.mark.parametrize("status", STATUSES)
def test_patch_sets_each_state_and_keeps_everything_else(api, status):
    shipment = create(api)
    response = patch_status(api, shipment["id"], f"?status={status}")
    assert response.status_code == 200
    assert body(response) == moved(shipment, status)
    assert body(api.get(f"/api/envios/{shipment['id']}")) == moved(shipment, status)


def test_patch_to_the_same_state_and_backwards(api):
    shipment = create(api, tipoEnvio="EXPRESS")
    for status in ["CREADO", "ENTREGADO", "ENTREGADO", "ASIGNADO", "CREADO", "EN_RUTA"]:
        response = patch_status(api, shipment["id"], f"?status={status}")
        assert response.status_code == 200
        assert body(response) == moved(shipment, status)


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?status=",
        "?status=en_ruta",
        "?status=Creado",
        "?status=CANCELADO",
        "?status=EN%20RUTA",
        "?estado=EN_RUTA",
    ],
)
def test_patch_with_a_missing_or_invalid_status_gets_400_and_changes_nothing(api, query):
    shipment = create(api)
    response = patch_status(api, shipment["id"], query)
    assert response.status_code == 400 and error_code(response) == "VALIDATION_ERROR"
    assert [d["field"] for d in body(response)["details"]] == ["status"]
    assert body(api.get(f"/api/envios/{shipment['id']}")) == shipment


@pytest.mark.parametrize("raw_id", ["424242", "0", "-5", "9" * 30])
def test_patch_of_an_unknown_id_gets_404_and_creates_nothing(api, raw_id):
    response = patch_status(api, raw_id, "?status=EN_RUTA")
    assert response.status_code == 404 and error_code(response) == "SHIPMENT_NOT_FOUND"
    assert body(api.get("/api/envios")) == []


@pytest.mark.parametrize(
    "raw_id, query, status, code",
    [
        ("abc", "?status=NOPE", 400, "INVALID_ID"),  # the id is checked first
        ("abc", "?status=EN_RUTA", 400, "INVALID_ID"),
        ("424242", "?status=NOPE", 400, "VALIDATION_ERROR"),  # then the status, before 404
        ("424242", "", 400, "VALIDATION_ERROR"),
    ],
)
def test_patch_checks_the_id_then_the_status_then_existence(api, raw_id, query, status, code):
    response = patch_status(api, raw_id, query)
    assert response.status_code == status and error_code(response) == code


def test_patch_ignores_its_body(api):
    shipment = create(api)
    response = api.patch(
        f"/api/envios/{shipment['id']}/status?status=ASIGNADO",
        {"status": "ENTREGADO", "destino": "Otro", "transportista": "Otra"},
    )
    assert body(response) == moved(shipment, "ASIGNADO")
    response = api.patch(
        f"/api/envios/{shipment['id']}/status?status=EN_RUTA",
        raw=b"{not json",
        headers={"Content-Type": "text/plain"},
    )
    assert response.status_code == 200
    assert body(api.get(f"/api/envios/{shipment['id']}")) == moved(shipment, "EN_RUTA")


def _table():
    return Cloud.from_env().table_name("ShipmentsTable")


def test_patch_writes_only_the_status_attribute(api, tables):
    """A whole-item save would drop an attribute the model does not know; an update keeps it."""
    shipment = create(api)
    key = {"id": {"N": str(shipment["id"])}}
    tables.update_item(
        TableName=_table(),
        Key=key,
        UpdateExpression="SET nota = :n",
        ExpressionAttributeValues={":n": {"S": "frágil"}},
    )
    assert patch_status(api, shipment["id"], "?status=EN_RUTA").status_code == 200
    item = tables.get_item(TableName=_table(), Key=key, ConsistentRead=True)["Item"]
    assert item["nota"] == {"S": "frágil"}
    assert item["status"] == {"S": "EN_RUTA"}


def test_parallel_patches_keep_every_other_field(api):
    shipment = create(api)
    sent = STATUSES * 2
    with ThreadPoolExecutor(8) as pool:
        responses = list(
            pool.map(lambda status: patch_status(api, shipment["id"], f"?status={status}"), sent)
        )
    assert [r.status_code for r in responses] == [200] * 8
    for response, status in zip(responses, sent, strict=True):
        assert body(response) == moved(shipment, status)
    final = body(api.get(f"/api/envios/{shipment['id']}"))
    assert final["status"] in sent
    assert final == moved(shipment, final["status"])


def test_patches_racing_another_writer_never_undo_its_change(api, tables):
    shipment = create(api)
    key = {"id": {"N": str(shipment["id"])}}
    done = threading.Event()

    def other_writer():
        for i in range(40):
            tables.update_item(
                TableName=_table(),
                Key=key,
                UpdateExpression="SET transportista = :t",
                ExpressionAttributeValues={":t": {"S": f"T-{i}"}},
            )
        done.set()

    def patches(_):
        codes = []
        while not done.is_set():
            codes.append(patch_status(api, shipment["id"], "?status=EN_RUTA").status_code)
        return codes

    writer = threading.Thread(target=other_writer)
    with ThreadPoolExecutor(4) as pool:
        racing = pool.map(patches, range(4))
        writer.start()
        writer.join()
        codes = [code for batch in racing for code in batch]
    assert set(codes) <= {200}
    final = body(api.get(f"/api/envios/{shipment['id']}"))
    assert final == moved(shipment, "EN_RUTA", transportista="T-39")


def test_a_shipments_history_is_bounded_at_a_hundred(api):
    """Through the routes (moved down from the stack's tests: 102 PATCHes there were 32 s
    of CPU); the trimming itself is the repository's contract (test_repository_contracts)."""
    shipment = create(api)
    # 102 changes: with its creation, three entries past the bound (130 showed no more, for
    # a quarter more of the requests).
    for n in range(102):
        status = ("ASIGNADO", "EN_RUTA")[n % 2]
        assert patch_status(api, shipment["id"], f"?status={status}").status_code == 200
    history = body(api.get(f"/api/envios/{shipment['id']}/historial"))
    assert len(history) == 100
    assert history[0] == {"status": "CREADO", "fecha": shipment["creadoEn"], "rol": "operator"}
    assert history[-1]["status"] == "EN_RUTA"  # the 102nd change
    # Then the 4th and 5th: the first three changes are the ones left out.
    assert [entry["status"] for entry in history[1:3]] == ["EN_RUTA", "ASIGNADO"]
    # A PATCH moves a shipment either way (tracking events only forward) and its tracking
    # state with it (docs/api.md#tracking): the last one's.
    shown = body(api.get(f"/api/envios/{shipment['id']}"))
    assert (shown["status"], shown["estadoSeguimiento"]) == ("EN_RUTA", "EN_RUTA")
