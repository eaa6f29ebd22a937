"""A person's rights over their data (docs/api.md#personal-data), through the gateway app
in-process, against the emulator's tables, queues and user pool: each call the users and
erasure functions make is one their roles allow (conftest). The erasure function is run
here on the message the request queued, as its event source mapping would."""

import gzip
import json
import uuid
from types import SimpleNamespace

import boto3
import pytest

from common.dashboard import layout
from common.platform import jsonio
from common.platform.settings import Cloud
from infra import template
from tests.integration.test_user_ids import a_product
from tests.support.api import body, error_code
from tests.support.endpoints import point
from tests.support.settings import built

PASSWORD = "A-long-Passphrase-2026"
ORDER = {"total": 3, "tipoPedido": "NACIONAL", "destino": "Av. Arequipa 1234", "cantidad": 1}
CONTEXT = SimpleNamespace(
    function_name="ErasureFunction",
    memory_limit_in_mb=512,
    aws_request_id="r",
    invoked_function_arn="arn:aws:lambda:us-east-1:1:function:ErasureFunction",
    get_remaining_time_in_millis=lambda: 100_000,
)


@pytest.fixture
def queues(emulator, monkeypatch):
    point(monkeypatch, "SQS", emulator.url)
    sqs = boto3.client("sqs", endpoint_url=emulator.url)
    for url in sqs.list_queues().get("QueueUrls", []):
        sqs.delete_queue(QueueUrl=url)
    template.create_queues(sqs)
    return sqs


@pytest.fixture
def platform(orders_gateway, pool, queues, monkeypatch):
    """The gateway with its sign-in routes (the emulator's pool), its orders (stock
    checked over HTTP) and the erasure queue: an operator's token by default."""
    point(monkeypatch, "COGNITO_IDENTITY_PROVIDER", pool.url)
    api = orders_gateway(**pool.environment())
    api.pool = pool
    return api


class Person:
    """A customer with an account, and their token."""

    def __init__(self, api, nombre: str = "Ana Torres"):
        self.email = f"person-{uuid.uuid4().hex[:12]}@example.com"
        made = api.post(
            "/api/auth/register",
            {"email": self.email, "password": PASSWORD, "nombre": nombre},
            token=None,
        )
        assert made.status_code == 201, made.body
        self.user_id = body(made)["userId"]
        self.token = sign_in(api, self.email)


def sign_in(api, email: str, password: str = PASSWORD) -> str | None:
    answer = api.post("/api/auth/login", {"email": email, "password": password}, token=None)
    return answer.body.decode() if answer.status_code == 200 else None


def an_order(api, person, product: int, status: str | None = None, **fields) -> dict:
    sent = {
        **ORDER,
        "userId": person.user_id,
        "userEmail": person.email,
        "clienteNombre": "Ana Torres",
        "productoId": product,
        **fields,
    }
    placed = api.post("/api/pedidos", sent)
    assert placed.status_code == 201, placed.body
    order = body(placed)
    for step in {
        "CANCELADO": ["CANCELADO"],
        "ENTREGADO": ["APROBADO", "EN_ENVIO", "ENTREGADO"],
    }.get(status, []):
        moved = api.patch(f"/api/pedidos/{order['id']}/status?status={step}")
        assert moved.status_code == 200, moved.body
        order = body(moved)
    return order


def a_shipment(api, order_id: int, status: str | None = None) -> dict:
    made = api.post(
        "/api/envios",
        {"pedidoId": order_id, "tipoEnvio": "EXPRESS", "transportista": "DHL", "destino": "Lima"},
    )
    assert made.status_code == 201, made.body
    shipment = body(made)
    if status is not None:
        moved = api.patch(f"/api/envios/{shipment['id']}/status?status={status}")
        assert moved.status_code == 200, moved.body
        shipment = body(moved)
    return shipment


def run_erasures(queues, pool) -> int:
    """The erasure function on every message of the erasure queue, as its mapping hands
    them over; how many it ran."""
    from erasure.wiring import create

    handler = built(create, **pool.environment())
    url = queues.get_queue_url(QueueName="ErasureQueue")["QueueUrl"]
    ran = 0
    while messages := queues.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get(
        "Messages", []
    ):
        for message in messages:
            record = {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
            }
            answer = handler({"Records": [record]}, CONTEXT)
            assert answer == {"batchItemFailures": []}, answer
            queues.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            ran += 1
    return ran


def test_a_person_sees_every_order_and_shipment_of_theirs_and_an_operator_anyones(platform):
    ana, other = Person(platform), Person(platform)
    product = a_product(platform)
    first = an_order(platform, ana, product)
    second = an_order(platform, ana, product, status="CANCELADO")
    shipment = a_shipment(platform, first["id"])
    an_order(platform, other, product)

    mine = platform.get("/api/usuarios/me/datos", token=ana.token)
    assert mine.status_code == 200, mine.body
    assert mine.headers["Cache-Control"] == "no-store"
    data = body(mine)
    assert data["cuenta"] == {
        "userId": ana.user_id,
        "email": ana.email,
        "nombre": "Ana Torres",
        "rol": "customer",
        "estado": "ACTIVA",
        "creadoEn": data["cuenta"]["creadoEn"],
    }
    assert [o["id"] for o in data["pedidos"]] == [first["id"], second["id"]]
    assert data["pedidos"][1] == {**second}
    assert data["envios"] == [shipment]

    by_operator = platform.get(f"/api/usuarios/{ana.user_id}/datos")
    assert body(by_operator) == data
    assert platform.get(f"/api/usuarios/{other.user_id}/datos", token=ana.token).status_code == 403
    assert platform.get("/api/usuarios/me/datos", token=None).status_code == 401
    assert error_code(platform.get("/api/usuarios/abc/datos")) == "INVALID_ID"


def test_a_userid_without_an_account_has_its_orders_and_no_account(platform):
    product = a_product(platform)
    nobody = SimpleNamespace(user_id=900_000 + uuid.uuid4().int % 99_999, email="x@example.com")
    order = an_order(platform, nobody, product)
    data = body(platform.get(f"/api/usuarios/{nobody.user_id}/datos"))
    assert data == {"cuenta": None, "pedidos": [order], "envios": [], "devoluciones": []}


def test_the_export_is_a_file_with_every_item_and_its_history_compressed_when_taken(platform):
    ana = Person(platform)
    product = a_product(platform)
    order = an_order(platform, ana, product, status="ENTREGADO")
    shipment = a_shipment(platform, order["id"], status="ENTREGADO")

    exported = platform.get("/api/usuarios/me/datos/exportar", token=ana.token)
    assert exported.status_code == 200, exported.body
    assert exported.headers["Content-Type"].startswith("application/json")
    assert exported.headers["Content-Disposition"] == (
        f'attachment; filename="datos-{ana.user_id}.json"'
    )
    data = body(exported)
    (kept,) = data["pedidos"]
    assert [entry["status"] for entry in kept["historial"]] == [
        "PENDIENTE",
        "APROBADO",
        "EN_ENVIO",
        "ENTREGADO",
    ]
    assert {k: v for k, v in kept.items() if k != "historial"} == order
    assert [e["status"] for e in data["envios"][0]["historial"]] == ["CREADO", "ENTREGADO"]
    assert data["envios"][0]["id"] == shipment["id"]

    # Compressed for a client that takes gzip and asks for JSON by name (what API
    # Gateway passes on as binary: docs/api.md#personal-data); not for one asking */*.
    compressed = platform.get(
        "/api/usuarios/me/datos/exportar",
        token=ana.token,
        headers={"Accept-Encoding": "gzip, deflate", "Accept": "application/json"},
    )
    assert compressed.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(compressed.body)) == json.loads(exported.body)
    anything = platform.get(
        "/api/usuarios/me/datos/exportar",
        token=ana.token,
        headers={"Accept-Encoding": "gzip", "Accept": "*/*"},
    )
    assert "Content-Encoding" not in anything.headers


def test_a_person_corrects_their_name_and_email_and_their_orders_in_flight_follow(platform):
    ana, bea = Person(platform), Person(platform)
    product = a_product(platform)
    pending = an_order(platform, ana, product)
    delivered = an_order(platform, ana, product, status="ENTREGADO")

    renamed = platform.put("/api/usuarios/me", {"nombre": "Ana T. Ruiz"}, token=ana.token)
    assert (renamed.status_code, body(renamed)["nombre"]) == (200, "Ana T. Ruiz"), renamed.body

    wrong = platform.put(
        "/api/usuarios/me/email", {"email": "x@example.com", "password": "no"}, token=ana.token
    )
    assert (wrong.status_code, error_code(wrong)) == (401, "INVALID_CREDENTIALS")
    taken = platform.put(
        "/api/usuarios/me/email", {"email": bea.email, "password": PASSWORD}, token=ana.token
    )
    assert (taken.status_code, error_code(taken)) == (409, "EMAIL_TAKEN")
    bad = platform.put(
        "/api/usuarios/me/email", {"email": "not-an-email", "password": PASSWORD}, token=ana.token
    )
    assert (bad.status_code, error_code(bad)) == (400, "VALIDATION_ERROR")

    new_email = f"Ana-{uuid.uuid4().hex[:8]}@Example.com"
    changed = platform.put(
        "/api/usuarios/me/email", {"email": new_email, "password": PASSWORD}, token=ana.token
    )
    assert changed.status_code == 200, changed.body
    assert body(changed)["email"] == new_email.lower()
    assert sign_in(platform, new_email.lower()) is not None
    assert sign_in(platform, ana.email) is None
    orders = {
        o["id"]: o for o in body(platform.get(f"/api/usuarios/{ana.user_id}/datos"))["pedidos"]
    }
    assert orders[pending["id"]]["userEmail"] == new_email.lower()
    assert orders[delivered["id"]]["userEmail"] == ana.email  # a final order keeps its record


def test_an_erasure_waits_while_anything_is_in_flight_naming_it(platform):
    ana = Person(platform)
    product = a_product(platform)
    pending = an_order(platform, ana, product)
    delivered = an_order(platform, ana, product, status="ENTREGADO")
    shipment = a_shipment(platform, delivered["id"], status="EN_RUTA")

    refused = platform.post(
        "/api/usuarios/me/cancelacion",
        {"password": PASSWORD, "confirmacion": "ELIMINAR_MI_CUENTA"},
        token=ana.token,
    )
    assert (refused.status_code, error_code(refused)) == (409, "OPEN_ORDERS"), refused.body
    named = {(d["field"], d["id"]) for d in body(refused)["details"]}
    assert named == {("pedidos", pending["id"]), ("envios", shipment["id"])}
    assert sign_in(platform, ana.email) is not None  # nothing changed
    assert body(platform.get(f"/api/pedidos/{pending['id']}"))["userEmail"] == ana.email


def test_a_person_erases_themselves_and_only_the_facts_of_the_business_stay(platform, queues):
    ana = Person(platform)
    product = a_product(platform)
    order = an_order(platform, ana, product, status="ENTREGADO")
    shipment = a_shipment(platform, order["id"], status="ENTREGADO")
    cancelled = an_order(platform, ana, product, status="CANCELADO")

    for sent, code in (
        ({"password": PASSWORD}, 400),
        ({"password": PASSWORD, "confirmacion": "eliminar"}, 400),
        ({"password": "Wrong-Password-2026", "confirmacion": "ELIMINAR_MI_CUENTA"}, 401),
    ):
        answer = platform.post("/api/usuarios/me/cancelacion", sent, token=ana.token)
        assert answer.status_code == code, answer.body
    erased = platform.post(
        "/api/usuarios/me/cancelacion",
        {"password": PASSWORD, "confirmacion": "ELIMINAR_MI_CUENTA"},
        token=ana.token,
    )
    assert erased.status_code == 200, erased.body
    assert body(erased) == {"userId": ana.user_id, "estado": "CANCELADA"}
    assert sign_in(platform, ana.email) is None  # its sessions ended at once
    assert run_erasures(queues, platform.pool) == 1

    data = body(platform.get(f"/api/usuarios/{ana.user_id}/datos"))
    assert data["cuenta"] is None
    stripped = {"userEmail": None, "clienteNombre": None, "destino": None, "observaciones": None}
    assert data["pedidos"] == [{**order, **stripped}, {**cancelled, **stripped}]
    assert data["envios"] == [{**shipment, "destino": None, "rutaDescripcion": None}]
    assert body(platform.get(f"/api/pedidos/{order['id']}")) == {**order, **stripped}
    history = body(platform.get(f"/api/pedidos/{order['id']}/historial"))
    assert [entry["status"] for entry in history][-1] == "ENTREGADO"
    # The email registers again: a new account, a new userId that owns nothing.
    again = platform.post(
        "/api/auth/register", {"email": ana.email, "password": PASSWORD}, token=None
    )
    assert again.status_code == 201, again.body
    assert body(again)["userId"] != ana.user_id
    token = sign_in(platform, ana.email)
    assert body(platform.get("/api/usuarios/me/datos", token=token))["pedidos"] == []


def test_an_operator_erases_someone_without_an_account_and_twice_strips_again(platform, queues):
    product = a_product(platform)
    nobody = SimpleNamespace(user_id=800_000 + uuid.uuid4().int % 99_999, email="z@example.com")
    order = an_order(platform, nobody, product, status="CANCELADO")
    path = f"/api/usuarios/{nobody.user_id}/cancelacion"
    assert platform.post(path, {}).status_code == 400  # why: the request that came
    erased = platform.post(path, {"motivo": "Pedido por correo, ticket 4411"})
    assert (erased.status_code, body(erased)) == (
        200,
        {"userId": nobody.user_id, "estado": "CANCELADA"},
    )
    assert run_erasures(queues, platform.pool) == 1
    again = platform.post(path, {"motivo": "otra vez"})
    assert (again.status_code, body(again)["estado"]) == (200, "CANCELADA")
    # An erasure of its own, which strips whatever a race left (here: nothing).
    assert run_erasures(queues, platform.pool) == 1
    (kept,) = body(platform.get(f"/api/usuarios/{nobody.user_id}/datos"))["pedidos"]
    assert kept["id"] == order["id"] and kept["userEmail"] is None
    customer = Person(platform)
    assert platform.post(path, {"motivo": "x"}, token=customer.token).status_code == 403
    # Their own userId is theirs to name, as `me`: with their password and confirmation.
    own = f"/api/usuarios/{customer.user_id}/cancelacion"
    answer = platform.post(own, {"motivo": "x"}, token=customer.token)
    assert (answer.status_code, error_code(answer)) == (400, "VALIDATION_ERROR")
    sent = {"password": PASSWORD, "confirmacion": "ELIMINAR_MI_CUENTA"}
    answer = platform.post(own, sent, token=customer.token)
    assert body(answer) == {"userId": customer.user_id, "estado": "CANCELADA"}


def test_the_record_of_requests_holds_each_request_newest_first_and_no_erased_data(
    platform, queues
):
    ana = Person(platform)
    platform.get("/api/usuarios/me/datos", token=ana.token)
    platform.get(f"/api/usuarios/{ana.user_id}/datos/exportar")
    platform.put("/api/usuarios/me", {"nombre": "Ana"}, token=ana.token)
    platform.post(
        "/api/usuarios/me/cancelacion",
        {"password": "Wrong-Password-2026", "confirmacion": "ELIMINAR_MI_CUENTA"},
        token=ana.token,
    )
    platform.post(
        "/api/usuarios/me/cancelacion",
        {"password": PASSWORD, "confirmacion": "ELIMINAR_MI_CUENTA"},
        token=ana.token,
    )
    run_erasures(queues, platform.pool)
    listed = platform.get("/api/usuarios/solicitudes?limit=3")
    assert listed.status_code == 200, listed.body
    page = body(listed)
    assert "X-Next-Token" in listed.headers
    rest = body(
        platform.get(f"/api/usuarios/solicitudes?nextToken={listed.headers['X-Next-Token']}")
    )
    mine = [r for r in page + rest if r["userId"] == ana.user_id]
    assert [(r["tipo"], r["origen"], r["resultado"]) for r in mine] == [
        ("SUPRESION", "customer", 200),
        ("SUPRESION", "customer", 401),
        ("RECTIFICACION", "customer", 200),
        ("PORTABILIDAD", "operator", 200),
        ("ACCESO", "customer", 200),
    ]
    assert mine[0]["completadaEn"] is not None
    assert ana.email not in json.dumps(page + rest)
    customer = Person(platform)
    assert platform.get("/api/usuarios/solicitudes", token=customer.token).status_code == 403


def test_a_create_replayed_for_its_idempotency_key_after_the_erasure_holds_no_data(
    platform, queues
):
    """Powertools keeps a create's answer 24 h for its Idempotency-Key: without the
    person's data, which a replay reads from the order or shipment as it is now, so the
    same answer before the erasure and none of their data after it, and no copy of it in
    the table at any time."""
    product = a_product(platform)
    nobody = SimpleNamespace(
        user_id=700_000 + uuid.uuid4().int % 99_999, email=f"k-{uuid.uuid4().hex}@example.com"
    )
    sent = {
        **ORDER,
        "userId": nobody.user_id,
        "userEmail": nobody.email,
        "clienteNombre": "Ana Torres",
        "productoId": product,
    }
    key = {"Idempotency-Key": uuid.uuid4().hex}
    placed = platform.post("/api/pedidos", sent, headers=key)
    assert placed.status_code == 201, placed.body
    order_id = body(placed)["id"]
    shipment = {
        "pedidoId": order_id,
        "tipoEnvio": "EXPRESS",
        "transportista": "DHL",
        "destino": "Lima",
    }
    made = platform.post("/api/envios", shipment, headers=key)
    assert made.status_code == 201, made.body
    assert platform.post("/api/pedidos", sent, headers=key).body == placed.body
    assert platform.post("/api/envios", shipment, headers=key).body == made.body
    records = _idempotency_records()
    assert {"POST /api/pedidos", "POST /api/envios"} <= {
        item["id"]["S"].split("#")[0] for item in records
    }
    kept = json.dumps(records)
    for personal in (nobody.email, "Ana Torres", ORDER["destino"], "Lima"):
        assert personal not in kept
    for step in ("APROBADO", "EN_ENVIO", "ENTREGADO"):
        platform.patch(f"/api/pedidos/{order_id}/status?status={step}")
    platform.patch(f"/api/envios/{body(made)['id']}/status?status=ENTREGADO")
    erased = platform.post(f"/api/usuarios/{nobody.user_id}/cancelacion", {"motivo": "mail"})
    assert erased.status_code == 200, erased.body

    again = platform.post("/api/pedidos", sent, headers=key)
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert (body(again)["id"], body(again)["userEmail"], body(again)["destino"]) == (
        order_id,
        None,
        None,
    )
    again = platform.post("/api/envios", shipment, headers=key)
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert (body(again)["destino"], body(again)["rutaDescripcion"]) == (None, None)


def _idempotency_records() -> list[dict]:
    """Every item of IdempotencyTable as stored."""
    table = Cloud.from_env().table_name("IdempotencyTable")
    return boto3.client("dynamodb").scan(TableName=table)["Items"]


def test_requests_made_in_different_environments_are_numbered_in_the_order_they_came(tables):
    """The record lists newest first by id: two environments of the users function (each
    its own repository) alternating must hand out rising ids, which a block of ids per
    environment did not (the console's record listed an operator's two erasures of one
    person in the wrong order when a second environment had answered one of them)."""
    from common.platform import aws
    from users.repository import Requests

    with aws.acting_as("UsersFunction"):
        first, second = Requests(Cloud.from_env()), Requests(Cloud.from_env())
        ids = [environment.next_id() for _ in range(20) for environment in (first, second)]
    assert ids == sorted(ids) and len(set(ids)) == 40


def test_a_tracking_events_words_are_exported_and_erased_with_the_person(platform, queues):
    """`detalle` is personal (docs/api.md#personal-data): in the person's export with
    their shipment's events, and gone from the events, the incident and every copy once
    they are erased; the facts (states, dates, places) stay."""
    product = a_product(platform)
    nobody = SimpleNamespace(user_id=700_000 + uuid.uuid4().int % 99_999, email="w@example.com")
    order = an_order(platform, nobody, product, status="ENTREGADO")
    shipment = a_shipment(platform, order["id"])
    words = "Dejado con la vecina, Sra. Marta Ríos"
    for estado, detalle in (("INCIDENCIA", "Sra. Marta no estaba"), ("ENTREGADO", words)):
        recorded = platform.post(
            f"/api/envios/{shipment['id']}/eventos",
            {"estado": estado, "detalle": detalle, "ubicacion": "Lima"},
        )
        assert recorded.status_code == 201, recorded.body
    exported = body(platform.get(f"/api/usuarios/{nobody.user_id}/datos/exportar"))
    (envio,) = exported["envios"]
    assert [e["detalle"] for e in envio["eventos"]] == ["Sra. Marta no estaba", words]
    assert envio["incidencia"]["detalle"] == "Sra. Marta no estaba"
    erased = platform.post(f"/api/usuarios/{nobody.user_id}/cancelacion", {"motivo": "correo"})
    assert erased.status_code == 200, erased.body
    assert run_erasures(queues, platform.pool) == 1
    after = body(platform.get(f"/api/usuarios/{nobody.user_id}/datos/exportar"))
    assert "Marta" not in jsonio.dumps(after)
    (envio,) = after["envios"]
    assert [(e["estado"], e["ubicacion"], e["detalle"]) for e in envio["eventos"]] == [
        ("INCIDENCIA", "Lima", None),
        ("ENTREGADO", "Lima", None),
    ]
    assert envio["incidencia"]["detalle"] is None and envio["incidencia"]["fecha"]
    events = body(platform.get(f"/api/envios/{shipment['id']}/eventos"))
    assert "Marta" not in jsonio.dumps(events) + jsonio.dumps(
        body(platform.get(f"/api/envios/{shipment['id']}"))
    )
    # A carrier's late words about an erased person are not kept either.
    late = platform.post(
        f"/api/envios/{shipment['id']}/eventos", {"estado": "DEVUELTO", "detalle": "Marta otra vez"}
    )
    assert late.status_code == 201 and body(late)["detalle"] is None


def test_an_erased_userid_stays_erased_and_erasing_again_strips_what_a_race_left(platform, queues):
    """From the erasure's 200 on, no order, shipment or account is written under the
    userId (409 USER_ID_ERASED), whoever asks; an order a race left with the person's
    data is stripped by erasing again, which is an erasure of its own."""
    ana = Person(platform)
    product = a_product(platform)
    an_order(platform, ana, product, status="CANCELADO")
    path = f"/api/usuarios/{ana.user_id}/cancelacion"
    assert platform.post(path, {"motivo": "ticket 1"}).status_code == 200
    sent = {
        **ORDER,
        "userId": ana.user_id,
        "userEmail": ana.email,
        "productoId": product,
        "clienteNombre": "Ana Torres",
    }
    for _ in ("before the erasure runs", "after it"):
        refused = platform.post("/api/pedidos", sent)
        assert (refused.status_code, error_code(refused)) == (409, "USER_ID_ERASED"), refused.body
        assert run_erasures(queues, platform.pool) in (0, 1)
    # What a race left: an order saved under the id with the person's data (here written
    # for someone else, then given the erased id, as no request can any more).
    other = SimpleNamespace(user_id=700_000 + uuid.uuid4().int % 99_999, email=ana.email)
    left = an_order(platform, other, product, status="CANCELADO")
    boto3.client("dynamodb").update_item(
        TableName="OrdersTable",
        Key={"id": {"N": str(left["id"])}},
        UpdateExpression="SET userId = :erased",
        ExpressionAttributeValues={":erased": {"N": str(ana.user_id)}},
    )
    shipment = platform.post(
        "/api/envios",
        {"pedidoId": left["id"], "tipoEnvio": "EXPRESS", "transportista": "DHL", "destino": "x"},
    )
    assert (shipment.status_code, error_code(shipment)) == (409, "USER_ID_ERASED")
    again = platform.post(path, {"motivo": "ticket 2"})
    assert (again.status_code, body(again)["estado"]) == (200, "CANCELADA")
    assert run_erasures(queues, platform.pool) == 1
    pedidos = body(platform.get(f"/api/usuarios/{ana.user_id}/datos"))["pedidos"]
    assert [o["userEmail"] for o in pedidos] == [None, None]
    # `make user USER_ID=` never gives the id to a new account.
    from common.identity.user_ids import TABLE, UserIdErased, UserIds

    client = boto3.client("dynamodb")
    with pytest.raises(UserIdErased):
        UserIds(lambda: client, TABLE).for_account(ana.user_id)


def test_an_erasure_whose_message_was_lost_is_sent_again_by_the_sweep(
    platform, queues, monkeypatch
):
    """The queue's send failed after the request revoked the account: the erasure stayed
    EN_CURSO with no retry and no alarm. The erasure function's schedule finds it and
    sends it again (and counts it, an alarm), and it is done."""
    from datetime import timedelta

    from common.personal_data.erasures import ErasureQueue
    from common.platform.clock import utcnow
    from common.platform.errors import Unavailable
    from erasure.wiring import create

    ana = Person(platform)
    an_order(platform, ana, a_product(platform), status="CANCELADO")

    def lost(self, request_id):
        raise Unavailable("ERASURE_UNAVAILABLE", "lost", retry_after_seconds=5)

    sent = ErasureQueue.send
    monkeypatch.setattr(ErasureQueue, "send", lost)
    path = f"/api/usuarios/{ana.user_id}/cancelacion"
    assert platform.post(path, {"motivo": "ticket 9"}).status_code == 503
    monkeypatch.setattr(ErasureQueue, "send", sent)
    handler = built(create, **platform.pool.environment())
    assert handler.sweep(utcnow()) == 0  # not stuck yet: its minute is not up
    assert handler.sweep(utcnow() + timedelta(minutes=11)) == 1
    assert run_erasures(queues, platform.pool) == 1
    data = body(platform.get(f"/api/usuarios/{ana.user_id}/datos"))
    assert data["cuenta"] is None and data["pedidos"][0]["userEmail"] is None
    assert handler.sweep(utcnow() + timedelta(minutes=11)) == 0  # done: nothing to send


def test_an_erasure_strips_the_dashboards_newest_lists_whatever_the_stream_did(platform, queues):
    """The newest orders and shipments the dashboard shows are the figures function's,
    written from the tables' streams: when the batch with the stripped items fails (and
    is given up), the lists would keep the person's data. The erasure strips them
    itself, and leaves everyone else's entries as they were."""
    product = a_product(platform)
    nobody = SimpleNamespace(user_id=810_000 + uuid.uuid4().int % 9_999, email="d@example.com")
    someone = SimpleNamespace(user_id=820_000 + uuid.uuid4().int % 9_999, email="e@example.com")
    theirs = an_order(platform, nobody, product, status="ENTREGADO")
    shipment = a_shipment(platform, theirs["id"], status="ENTREGADO")
    other = an_order(platform, someone, product, status="CANCELADO")
    dynamodb = boto3.client("dynamodb")
    figures = Cloud.from_env().table_name("DashboardFiguresTable")
    # As the figures function left them before the erasure (its later batch never came).
    listed = {
        layout.list_key(layout.ORDERS, theirs["id"]): [theirs],
        layout.list_key(layout.ORDERS, other["id"]): [other],
        layout.list_key(layout.SHIPMENTS, shipment["id"]): [shipment],
    }
    if layout.list_key(layout.ORDERS, theirs["id"]) == layout.list_key(layout.ORDERS, other["id"]):
        listed[layout.list_key(layout.ORDERS, theirs["id"])] = [other, theirs]
    for key, items in listed.items():
        dynamodb.put_item(
            TableName=figures,
            Item={"clave": {"S": key}, "items": {"S": json.dumps(items)}, "version": {"N": "3"}},
        )

    erased = platform.post(f"/api/usuarios/{nobody.user_id}/cancelacion", {"motivo": "mail"})
    assert erased.status_code == 200, erased.body
    assert run_erasures(queues, platform.pool) == 1

    held = {
        key: json.loads(
            dynamodb.get_item(TableName=figures, Key={"clave": {"S": key}})["Item"]["items"]["S"]
        )
        for key in listed
    }
    shown = {
        entry["id"]: entry for key, items in held.items() if "pedidos" in key for entry in items
    }
    stripped = {"userEmail": None, "clienteNombre": None, "destino": None, "observaciones": None}
    assert shown[theirs["id"]] == {**theirs, **stripped}
    assert shown[other["id"]] == other
    shipment_entry = next(e for e in held[layout.list_key(layout.SHIPMENTS, shipment["id"])])
    assert shipment_entry == {**shipment, "destino": None, "rutaDescripcion": None}


def test_a_returns_comment_is_exported_waits_the_erasure_and_is_erased(platform, queues):
    """`comentario` is personal (docs/api.md#returns): in the person's data with their
    returns, an open return keeps an erasure waiting, and an erasure strips it."""
    product = a_product(platform)
    nobody = SimpleNamespace(user_id=700_000 + uuid.uuid4().int % 99_999, email="r@example.com")
    order = an_order(platform, nobody, product, status="ENTREGADO")
    words = "Lo dejé con el portero, Sr. Ramón Díaz"
    asked = platform.post(
        f"/api/pedidos/{order['id']}/devoluciones",
        {"lineas": [{"linea": 1, "cantidad": 1}], "motivo": "OTRO", "comentario": words},
    )
    assert asked.status_code == 201, asked.body
    ret = body(asked)
    data = body(platform.get(f"/api/usuarios/{nobody.user_id}/datos"))
    assert [r["comentario"] for r in data["devoluciones"]] == [words]
    exported = body(platform.get(f"/api/usuarios/{nobody.user_id}/datos/exportar"))
    (kept,) = exported["devoluciones"]
    assert [h["status"] for h in kept["historial"]] == ["SOLICITADA"]

    waiting = platform.post(f"/api/usuarios/{nobody.user_id}/cancelacion", {"motivo": "correo"})
    assert (waiting.status_code, error_code(waiting)) == (409, "OPEN_ORDERS"), waiting.body
    assert {(d["field"], d["id"]) for d in body(waiting)["details"]} == {
        ("devoluciones", ret["id"])
    }
    assert (
        platform.patch(f"/api/devoluciones/{ret['id']}/status?status=RECHAZADA").status_code == 200
    )
    erased = platform.post(f"/api/usuarios/{nobody.user_id}/cancelacion", {"motivo": "correo"})
    assert erased.status_code == 200, erased.body
    assert run_erasures(queues, platform.pool) == 1
    shown = body(platform.get(f"/api/devoluciones/{ret['id']}"))
    assert shown == {**ret, "estado": "RECHAZADA", "comentario": None}
    after = body(platform.get(f"/api/usuarios/{nobody.user_id}/datos/exportar"))
    assert "Ramón" not in jsonio.dumps(after)
    # an erased person's words are not kept by a return asked for after
    late = platform.post(
        f"/api/pedidos/{order['id']}/devoluciones",
        {"lineas": [{"linea": 1, "cantidad": 1}], "motivo": "OTRO", "comentario": words},
    )
    assert late.status_code == 201 and body(late)["comentario"] is None
