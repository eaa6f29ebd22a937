"""The webhooks' management API in-process, against emulated AWS (docs/api.md#webhooks):
endpoints and their secrets, the guard on targets, the attempts newest first and in
pages, a re-send; operators only."""

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import boto3
import pytest
from botocore.exceptions import ClientError

from common.platform import aws
from common.platform.settings import Cloud, Webhooks
from common.webhooks.records import DELIVERED, FAILED, Attempt, Delivery
from common.webhooks.repository import Attempts, Deliveries, WebhookRepository
from common.webhooks.vault import Vault
from infra import template
from tests.support.api import body
from tests.support.endpoints import point
from tests.support.tokens import make_token

LOCAL = {"WEBHOOK_LOCAL_TARGETS": "true"}
HOOK = {"url": "http://127.0.0.1:9/hook", "eventos": ["pedido.creado"]}


@pytest.fixture
def queue(emulator, monkeypatch):
    """The template's queues in the emulator, empty; the delivery queue's client."""
    point(monkeypatch, "SQS", emulator.url)
    sqs = boto3.client("sqs", endpoint_url=emulator.url)
    for url in sqs.list_queues().get("QueueUrls", []):
        sqs.delete_queue(QueueUrl=url)
    template.create_queues(sqs)
    return sqs


@pytest.fixture
def hooks(gateway, queue):
    """The gateway with local targets allowed (loopback, http), as `make run` has it."""
    return gateway(**LOCAL)


def created(hooks, **fields) -> dict:
    answer = hooks.post("/api/webhooks", {**HOOK, **fields})
    assert answer.status_code == 201, answer.body
    return body(answer)


def test_an_endpoint_is_created_with_its_secret_shown_once(hooks):
    answer = hooks.post("/api/webhooks", {**HOOK, "eventos": ["pedido.creado", "envio.estado"]})
    assert answer.status_code == 201
    made = body(answer)
    assert made["secreto"].startswith("whsec_") and len(made["secreto"]) > 40
    assert (made["url"], made["eventos"], made["activo"]) == (
        HOOK["url"],
        ["pedido.creado", "envio.estado"],
        True,
    )
    assert answer.headers["Location"].endswith(f"/api/webhooks/{made['id']}")
    shown = body(hooks.get(f"/api/webhooks/{made['id']}"))
    assert shown == {key: value for key, value in made.items() if key != "secreto"}
    listed = body(hooks.get("/api/webhooks"))
    assert listed == [shown]
    assert "whsec_" not in json.dumps(listed)


def test_a_deleted_endpoint_is_gone(hooks):
    made = created(hooks)
    assert hooks.delete(f"/api/webhooks/{made['id']}").status_code == 204
    answer = hooks.get(f"/api/webhooks/{made['id']}")
    assert answer.status_code == 404 and body(answer)["error"] == "WEBHOOK_NOT_FOUND"
    assert hooks.delete(f"/api/webhooks/{made['id']}").status_code == 404


def signing(webhook_id: int, now: datetime) -> list[str]:
    """The secrets that sign the endpoint's deliveries at `now`, as the delivery reads
    them (decrypted, as the delivery function does)."""
    cloud = Cloud.from_env()
    with aws.acting_as("WebhookDeliveryFunction"):
        vault = Vault(cloud, Webhooks.from_env())
        stored = WebhookRepository(cloud).get(webhook_id).signing_secrets(now)
        return [vault.open(webhook_id, secret) for secret in stored]


def stored_item(tables, webhook_id: int) -> dict:
    table = Cloud.from_env().table_name("WebhooksTable")
    return tables.get_item(TableName=table, Key={"id": {"N": str(webhook_id)}})["Item"]


def test_secrets_are_stored_encrypted_each_for_its_endpoint(hooks, tables, caplog):
    made, other = created(hooks), created(hooks)
    rotated = body(hooks.post(f"/api/webhooks/{made['id']}/secreto"))["secreto"]
    item = json.dumps(stored_item(tables, made["id"]))
    assert "whsec_" not in item
    for secret in (made["secreto"], rotated):
        assert secret.removeprefix("whsec_") not in item and secret not in caplog.text
    now = datetime.fromisoformat(made["creadoEn"])
    assert signing(made["id"], now) == [rotated, made["secreto"]]
    # Bound to its endpoint: copied onto another, it does not decrypt.
    sealed = stored_item(tables, made["id"])["secreto"]["S"]
    assert sealed.startswith("kms:")
    with aws.acting_as("WebhookDeliveryFunction"), pytest.raises(ClientError):
        Vault(Cloud.from_env(), Webhooks.from_env()).open(other["id"], sealed)


def plain(tables, webhook_id: int, secret: str) -> None:
    """The endpoint's secret as an earlier version stored it: in plain text."""
    tables.update_item(
        TableName=Cloud.from_env().table_name("WebhooksTable"),
        Key={"id": {"N": str(webhook_id)}},
        UpdateExpression="SET secreto = :s",
        ExpressionAttributeValues={":s": {"S": secret}},
    )


def test_a_secret_stored_in_plain_text_signs_until_a_rotation_encrypts_it(hooks, tables):
    made = created(hooks)
    old = "whsec_" + "B" * 44
    plain(tables, made["id"], old)
    now = datetime.fromisoformat(made["creadoEn"])
    assert signing(made["id"], now) == [old]
    rotated = body(hooks.post(f"/api/webhooks/{made['id']}/secreto"))["secreto"]
    assert "whsec_" not in json.dumps(stored_item(tables, made["id"]))
    assert signing(made["id"], now) == [rotated, old]


def test_the_backfill_encrypts_what_was_stored_in_plain_text_once(hooks, tables):
    from infra.webhook_secrets import encrypt_all

    made, kept = created(hooks), created(hooks)
    old = "whsec_" + "C" * 44
    plain(tables, made["id"], old)
    table = Cloud.from_env().table_name("WebhooksTable")
    vault = Vault(Cloud.from_env(), Webhooks(), client=boto3.client("kms"))
    assert encrypt_all(tables, table, vault.seal) == 1
    assert "whsec_" not in json.dumps(tables.scan(TableName=table)["Items"])
    now = datetime.fromisoformat(made["creadoEn"])
    assert signing(made["id"], now) == [old]
    assert signing(kept["id"], now) == [kept["secreto"]]
    assert encrypt_all(tables, table, vault.seal) == 0


def test_a_rotation_answers_a_new_secret_and_keeps_the_old_one_signing(hooks):
    made = created(hooks)
    answer = hooks.post(f"/api/webhooks/{made['id']}/secreto")
    assert answer.status_code == 200
    rotated = body(answer)
    assert rotated["secreto"].startswith("whsec_") and rotated["secreto"] != made["secreto"]
    now = datetime.fromisoformat(made["creadoEn"])
    assert signing(made["id"], now) == [rotated["secreto"], made["secreto"]]
    assert signing(made["id"], now + timedelta(hours=25)) == [rotated["secreto"]]


def test_concurrent_rotations_keep_every_secret_they_answered(hooks):
    made = created(hooks)
    with ThreadPoolExecutor(4) as pool:
        answers = list(
            pool.map(lambda _: hooks.post(f"/api/webhooks/{made['id']}/secreto"), range(4))
        )
    assert [answer.status_code for answer in answers] == [200] * 4
    issued = {made["secreto"]} | {body(answer)["secreto"] for answer in answers}
    now = datetime.fromisoformat(made["creadoEn"])
    assert set(signing(made["id"], now)) == issued and len(issued) == 5


def test_rotations_stop_at_ten_secrets_signing_until_the_oldest_stops(hooks):
    made = created(hooks)
    for _ in range(9):
        assert hooks.post(f"/api/webhooks/{made['id']}/secreto").status_code == 200
    refused = hooks.post(f"/api/webhooks/{made['id']}/secreto")
    assert (refused.status_code, body(refused)["error"]) == (429, "TOO_MANY_ROTATIONS")
    assert 23 * 3600 < int(refused.headers["Retry-After"]) <= 24 * 3600
    now = datetime.fromisoformat(made["creadoEn"])
    assert len(signing(made["id"], now + timedelta(minutes=5))) == 10


@pytest.mark.parametrize(
    "sent, field",
    [
        ({"url": "http://127.0.0.1:9/x", "eventos": ["pedido.borrado"]}, "eventos"),
        ({"url": "http://127.0.0.1:9/x", "eventos": []}, "eventos"),
        ({"url": "http://127.0.0.1:9/x", "eventos": "pedido.creado"}, "eventos"),
        ({"url": "http://127.0.0.1:9/x"}, "eventos"),
        ({"eventos": ["pedido.creado"]}, "url"),
        ({"url": "ftp://127.0.0.1/x", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "not a url", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "http://10.0.0.7/hook", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "http://169.254.169.254/latest", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "http://[fe80::1]/hook", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "http://[64:ff9b::a9fe:a9fe]/", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "http://[2002:a00:1::]:8443/", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "http://[::a9fe:a9fe]/", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "http://[fec0::1]:22/", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "http://[::ffff:10.0.0.7]:6379/", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "http://no-such-host.invalid/hook", "eventos": ["pedido.creado"]}, "url"),
        ({"url": "http://user:pw@127.0.0.1/x", "eventos": ["pedido.creado"]}, "url"),
    ],
)
def test_a_bad_endpoint_is_400_naming_the_field(hooks, sent, field):
    answer = hooks.post("/api/webhooks", sent)
    assert answer.status_code == 400, answer.body
    error = body(answer)
    assert error["error"] == "VALIDATION_ERROR"
    assert [detail["field"] for detail in error["details"]] == [field]
    assert body(hooks.get("/api/webhooks")) == []


def test_on_aws_only_https_to_public_addresses_is_a_target(gateway, queue):
    on_aws = gateway()  # WEBHOOK_LOCAL_TARGETS unset
    for url in ("http://127.0.0.1:9/hook", "https://127.0.0.1:9/hook", "https://localhost/x"):
        answer = on_aws.post("/api/webhooks", {**HOOK, "url": url})
        assert answer.status_code == 400, url
        assert body(answer)["details"][0]["field"] == "url"


def test_customers_may_not_touch_webhooks(hooks):
    made = created(hooks)
    customer = make_token(role="customer", userId=42)  # made now: it lives a minute
    for method, path in [
        ("GET", "/api/webhooks"),
        ("POST", "/api/webhooks"),
        ("GET", f"/api/webhooks/{made['id']}"),
        ("DELETE", f"/api/webhooks/{made['id']}"),
        ("POST", f"/api/webhooks/{made['id']}/secreto"),
        ("GET", f"/api/webhooks/{made['id']}/entregas"),
        ("POST", f"/api/webhooks/{made['id']}/entregas/evt_1/reenviar"),
        ("GET", "/api/webhooks/abc"),
    ]:
        answer = hooks.request(method, path, {"not": "read"}, token=customer)
        assert answer.status_code == 403, (method, path)
        assert body(answer) == {
            "error": "FORBIDDEN",
            "message": "Only operators may manage webhooks",
            "details": [],
        }
    assert body(hooks.get(f"/api/webhooks/{made['id']}"))["activo"] is True


def attempts_at(webhook_id: int, count: int) -> list[Attempt]:
    """`count` attempts a second apart, the oldest first, as stored."""
    log = Attempts(Cloud.from_env())
    start = datetime(2026, 5, 1, 12, 0, 0)
    made = []
    for number in range(count):
        now = start + timedelta(seconds=number)
        from common.webhooks.records import position

        attempt = Attempt(
            id=position(now),
            event_id=f"evt_{number}",
            type="pedido.creado",
            intento=1,
            status_code=500 if number % 2 else 200,
            error=None,
            estado=DELIVERED,
            timestamp=now.isoformat(timespec="microseconds"),
            duracion_ms=3,
        )
        log.add(webhook_id, attempt, now)
        made.append(attempt)
    return made


def test_the_attempts_are_listed_newest_first_in_pages(hooks):
    made = created(hooks)
    other = created(hooks)
    attempts_at(made["id"], 5)
    attempts_at(other["id"], 1)
    path = f"/api/webhooks/{made['id']}/entregas"
    seen, token = [], None
    for _ in range(5):
        answer = hooks.get(path + "?limit=2" + (f"&nextToken={token}" if token else ""))
        assert answer.status_code == 200
        seen += body(answer)
        token = answer.headers.get("X-Next-Token")
        if token is None:
            break
        assert answer.headers["Link"].startswith(f"<{path}?limit=2&nextToken=")
    assert [a["eventId"] for a in seen] == ["evt_4", "evt_3", "evt_2", "evt_1", "evt_0"]
    assert set(seen[0]) == {
        "eventId",
        "type",
        "intento",
        "statusCode",
        "error",
        "estado",
        "timestamp",
        "duracionMs",
        "siguienteIntento",
    }
    assert body(hooks.get(path)) == seen  # unpaged: the same, at once


def test_a_token_of_one_endpoints_attempts_is_refused_for_another(hooks):
    made, other = created(hooks), created(hooks)
    attempts_at(made["id"], 3)
    token = hooks.get(f"/api/webhooks/{made['id']}/entregas?limit=1").headers["X-Next-Token"]
    answer = hooks.get(f"/api/webhooks/{other['id']}/entregas?nextToken={token}")
    assert answer.status_code == 400
    assert body(answer)["details"][0]["field"] == "nextToken"
    for bad in ("limit=0", "limit=1001", "limit=x"):
        assert hooks.get(f"/api/webhooks/{made['id']}/entregas?{bad}").status_code == 400
    assert hooks.get("/api/webhooks/999/entregas").status_code == 404


def stored_delivery(
    webhook_id: int, estado: str, event_id: str = "evt_abc", now: datetime | None = None
) -> Delivery:
    deliveries = Deliveries(Cloud.from_env())
    now = now or datetime(2026, 5, 1, 12, 0, 0)
    delivery = deliveries.open(
        Delivery(
            webhook_id=webhook_id,
            event_id=event_id,
            type="pedido.creado",
            body='{"type":"pedido.creado","timestamp":"2026-05-01T12:00:00.000000","data":{}}',
            estado="PENDIENTE",
            actualizado_en="",
        ),
        now,
    )
    if estado != "PENDIENTE":
        assert deliveries.attempted(delivery, 1, estado, now)
    return delivery


def queued(sqs) -> list[dict]:
    url = sqs.get_queue_url(QueueName="WebhookDeliveryQueue")["QueueUrl"]
    answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
    return [json.loads(message["Body"]) for message in answer.get("Messages", [])]


def test_a_delivered_or_failed_event_is_sent_again_with_its_id_and_body(hooks, queue):
    made = created(hooks)
    for estado, event_id in ((DELIVERED, "evt_" + "d" * 32), (FAILED, "evt_" + "f" * 32)):
        delivery = stored_delivery(made["id"], estado, event_id)
        answer = hooks.post(f"/api/webhooks/{made['id']}/entregas/{event_id}/reenviar")
        assert answer.status_code == 202, answer.body
        assert body(answer)["estado"] == "PENDIENTE" and body(answer)["envio"] == 1
        (message,) = queued(queue)
        assert message == {
            "webhookId": made["id"],
            "eventId": event_id,
            "type": "pedido.creado",
            "envio": 1,
        }
        # The message names the delivery: its body is the stored one, sent as before.
        assert Deliveries(Cloud.from_env()).get(made["id"], event_id).body == delivery.body
        # Under way again: not re-sent twice at once.
        again = hooks.post(f"/api/webhooks/{made['id']}/entregas/{event_id}/reenviar")
        assert again.status_code == 409
        assert body(again)["error"] == "DELIVERY_IN_PROGRESS"


def test_a_delivery_left_pending_by_a_worker_that_died_is_sent_again(hooks, queue):
    made = created(hooks)
    stalled, under_way = "evt_" + "5" * 32, "evt_" + "6" * 32
    stored_delivery(made["id"], "PENDIENTE", stalled)  # its try was due long ago: no worker
    stored_delivery(made["id"], "PENDIENTE", under_way, now=datetime.now(UTC).replace(tzinfo=None))
    answer = hooks.post(f"/api/webhooks/{made['id']}/entregas/{stalled}/reenviar")
    assert answer.status_code == 202, answer.body
    assert (body(answer)["estado"], body(answer)["envio"]) == ("PENDIENTE", 1)
    busy = hooks.post(f"/api/webhooks/{made['id']}/entregas/{under_way}/reenviar")
    assert (busy.status_code, body(busy)["error"]) == (409, "DELIVERY_IN_PROGRESS")


def test_a_resend_of_an_unknown_event_or_endpoint_is_404(hooks):
    made = created(hooks)
    for event_id in ("evt_" + "0" * 32, "evt_nope", "x" * 2000):
        answer = hooks.post(f"/api/webhooks/{made['id']}/entregas/{event_id}/reenviar")
        assert answer.status_code == 404 and body(answer)["error"] == "EVENT_NOT_FOUND"
    answer = hooks.post("/api/webhooks/12345/entregas/evt_nope/reenviar")
    assert answer.status_code == 404 and body(answer)["error"] == "WEBHOOK_NOT_FOUND"


def test_a_secret_replaced_before_several_could_sign_still_signs_and_rotates_on(hooks, tables):
    made = created(hooks)
    now = datetime.fromisoformat(made["creadoEn"])
    legacy_until = (now + timedelta(hours=12)).isoformat(timespec="microseconds")
    tables.update_item(  # as one rotation wrote it before: one replaced secret, alone
        TableName=Cloud.from_env().table_name("WebhooksTable"),
        Key={"id": {"N": str(made["id"])}},
        UpdateExpression="SET secretoAnterior = :s, secretoAnteriorHasta = :h",
        ExpressionAttributeValues={":s": {"S": "whsec_" + "A" * 44}, ":h": {"S": legacy_until}},
    )
    assert signing(made["id"], now) == [made["secreto"], "whsec_" + "A" * 44]
    rotated = body(hooks.post(f"/api/webhooks/{made['id']}/secreto"))["secreto"]
    assert signing(made["id"], now) == [rotated, made["secreto"], "whsec_" + "A" * 44]
    assert signing(made["id"], now + timedelta(hours=13)) == [rotated, made["secreto"]]
