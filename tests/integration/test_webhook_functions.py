"""The webhooks' events and delivery functions in-process, against emulated AWS, each
call checked against its own role (tests/integration/conftest.py): a stream record made
into a message for each subscribed endpoint; a message delivered, signed; a failure
sent back for later; the last failure a dead letter; a 410 turning the endpoint off."""

import json
import time
from datetime import datetime
from decimal import Decimal
from types import SimpleNamespace

import boto3
import pytest

from common.platform.settings import AllSettings
from common.webhooks.messages import DeliveryMessage, encoded
from common.webhooks.repository import Attempts, Deliveries, WebhookRepository
from common.webhooks.vault import Vault
from infra import template
from tests.support.endpoints import point
from tests.support.settings import built
from tests.support.webhook_receiver import Receiver, verified
from webhooks.rules import NewEndpoint, new_endpoint, new_secret

SETTINGS = {"WEBHOOK_LOCAL_TARGETS": "true", "WEBHOOK_RETRY_SECONDS": "1,2,3,4,5"}
# What a handler reads of Lambda's context; invoked as Lambda does (handler(event,
# context)), each call is made as the function (its role checked).
CONTEXT = SimpleNamespace(
    function_name="f",
    memory_limit_in_mb=256,
    aws_request_id="r",
    invoked_function_arn="arn:aws:lambda:us-east-1:1:function:f",
    get_remaining_time_in_millis=lambda: 10_000,
)


@pytest.fixture
def sqs(emulator, tables, monkeypatch):
    point(monkeypatch, "SQS", emulator.url)
    client = boto3.client("sqs", endpoint_url=emulator.url)
    for url in client.list_queues().get("QueueUrls", []):
        client.delete_queue(QueueUrl=url)
    template.create_queues(client)
    return client


def settings() -> AllSettings:
    return AllSettings.from_env(SETTINGS)


def endpoint(url: str, eventos=("pedido.creado",)) -> dict:
    from common.platform import aws

    with aws.acting_as("WebhooksFunction"):
        endpoints, vault = (
            WebhookRepository(settings().cloud),
            Vault(settings().cloud, settings().webhooks),
        )
        ident, secret = endpoints.next_id(), new_secret()
        fields = NewEndpoint(url=url, eventos=tuple(eventos))
        endpoints.add(new_endpoint(fields, ident, datetime.now(), vault.seal(ident, secret)))
    return {"id": ident, "secreto": secret}


def queued(sqs) -> list[dict]:
    url = sqs.get_queue_url(QueueName="WebhookDeliveryQueue")["QueueUrl"]
    messages = sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["All"]
    ).get("Messages", [])
    return messages


def event_of(message: dict) -> dict:
    """The event a queued message names: its stored delivery's body (the message carries
    none)."""
    sent = json.loads(message["Body"])
    stored = Deliveries(settings().cloud).get(sent["webhookId"], sent["eventId"])
    assert stored is not None, sent
    return json.loads(stored.body)


def order_record(event_name: str, old_status: str | None, new_status: str) -> dict:
    def image(status: str) -> dict:
        return {
            "id": {"N": "7"},
            "userId": {"N": "3"},
            "userEmail": {"S": "ana@example.com"},
            "clienteNombre": {"S": "Ana"},
            "total": {"N": "19.99"},
            "status": {"S": status},
            "tipoPedido": {"S": "NACIONAL"},
            "destino": {"S": "Lima"},
            "observaciones": {"NULL": True},
            "productoId": {"N": "1"},
            "cantidad": {"N": "2"},
            "creadoEn": {"S": "2026-05-01T12:00:00.000000"},
            "statusShard": {"S": f"{status}#7"},
            "shard": {"N": "7"},
        }

    # Made now: after the endpoints (an endpoint gets no event of an earlier change).
    stream = {"NewImage": image(new_status), "ApproximateCreationDateTime": time.time()}
    if old_status is not None:
        stream["OldImage"] = image(old_status)
    return {
        "eventID": f"record-{event_name}-{new_status}",
        "eventName": event_name,
        "eventSource": "aws:dynamodb",
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:1:table/OrdersTable/stream/2026",
        "dynamodb": stream,
    }


def test_a_stream_record_becomes_one_message_per_subscribed_endpoint(sqs):
    from webhook_events.wiring import create

    handler = built(create, settings())
    first = endpoint("http://127.0.0.1:9/a", ["pedido.creado", "pedido.estado"])
    endpoint("http://127.0.0.1:9/b", ["pedido.estado"])
    endpoint("http://127.0.0.1:9/c", ["envio.creado"])
    records = [order_record("INSERT", None, "PENDIENTE"), order_record("MODIFY", "A", "A")]
    assert handler({"Records": records}, CONTEXT) == {"events": 1, "queued": 1}
    (message,) = queued(sqs)
    sent = json.loads(message["Body"])
    assert (sent["webhookId"], sent["type"], sent["envio"]) == (first["id"], "pedido.creado", 0)
    body = event_of(message)
    assert body["data"]["total"] == 19.99 and "statusShard" not in body["data"]
    moved = handler({"Records": [order_record("MODIFY", "PENDIENTE", "APROBADO")]}, CONTEXT)
    assert moved == {"events": 1, "queued": 2}


def test_a_queued_message_holds_no_copy_of_its_event_the_stored_delivery_does(sqs):
    """A message waits on the queue up to the retries' 7 hours, and SQS cannot edit one:
    an event's body in it (a person's email, name, address) outlived their erasure there.
    The events function stores the delivery with its body, which an erasure strips; the
    message names it only."""
    from webhook_events.wiring import create

    hook = endpoint("http://127.0.0.1:9/a", ["pedido.estado"])
    built(create, settings())({"Records": [order_record("MODIFY", "A", "B")]}, CONTEXT)
    (message,) = queued(sqs)
    sent = json.loads(message["Body"])
    assert "body" not in sent and "ana@example.com" not in message["Body"]
    assert (sent["webhookId"], sent["userId"]) == (hook["id"], 3)
    stored = Deliveries(settings().cloud).get(hook["id"], sent["eventId"])
    assert stored is not None and stored.estado == "PENDIENTE"
    assert json.loads(stored.body)["data"]["userEmail"] == "ana@example.com"


def test_an_order_event_carries_its_lines(sqs):
    """`pedido.*` carry the order's `lineas` as the API shows them
    (docs/api.md#orders-of-several-lines); an order of several has no productoId."""
    from common.orders.records import Assignment, Order, OrderLine
    from common.orders.repository import item_of
    from webhook_events.wiring import create

    handler = built(create, settings())
    endpoint("http://127.0.0.1:9/a", ["pedido.estado"])
    held = (Assignment(bodega_id=1, cantidad=1), Assignment(bodega_id=2, cantidad=1))
    lines = (
        OrderLine(
            linea=1,
            producto_id=4,
            sku="A",
            nombre="Caja",
            cantidad=2,
            precio_unitario=Decimal("2.5"),
            asignaciones=held,
        ),
        OrderLine(
            linea=2,
            producto_id=5,
            sku="B",
            nombre="Cinta",
            cantidad=1,
            precio_unitario=1,
            asignaciones=(Assignment(bodega_id=1, cantidad=1),),
        ),
    )
    order = Order(
        id=8,
        user_id=3,
        user_email="ana@example.com",
        cliente_nombre="Ana",
        total=6,
        tipo_pedido="NACIONAL",
        destino="Lima",
        producto_id=None,
        cantidad=None,
        lineas=lines,
        status="APROBADO",
        observaciones=None,
        creado_en="2026-05-01T12:00:00.000000",
    )
    new = item_of(order).serialize()
    old = {**new, "status": {"S": "PENDIENTE"}}
    record = {
        "eventID": "record-lines",
        "eventName": "MODIFY",
        "eventSource": "aws:dynamodb",
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:1:table/OrdersTable/stream/2026",
        "dynamodb": {"NewImage": new, "OldImage": old, "ApproximateCreationDateTime": time.time()},
    }
    assert handler({"Records": [record]}, CONTEXT) == {"events": 1, "queued": 1}
    (message,) = queued(sqs)
    data = event_of(message)["data"]
    assert (data["productoId"], data["cantidad"], data["statusAnterior"]) == (
        None,
        None,
        "PENDIENTE",
    )
    assert [(line["sku"], line["cantidad"]) for line in data["lineas"]] == [("A", 2), ("B", 1)]
    assert data["lineas"][0]["asignaciones"] == [
        {"bodegaId": 1, "cantidad": 1},
        {"bodegaId": 2, "cantidad": 1},
    ]


def sqs_event(sqs, *messages: DeliveryMessage, skipped: int = 0) -> dict:
    """The batch Lambda's queue mapping hands the function, once `skipped` receives
    (each failed at once) have come before it."""
    url = sqs.get_queue_url(QueueName="WebhookDeliveryQueue")["QueueUrl"]
    for message in messages:
        sqs.send_message(QueueUrl=url, MessageBody=encoded(message))
    for _ in range(skipped):
        for got in queued(sqs):
            sqs.change_message_visibility(
                QueueUrl=url, ReceiptHandle=got["ReceiptHandle"], VisibilityTimeout=0
            )
    return {
        "Records": [
            {
                "messageId": got["MessageId"],
                "receiptHandle": got["ReceiptHandle"],
                "body": got["Body"],
                "attributes": got["Attributes"],
            }
            for got in queued(sqs)
        ]
    }


def message_to(hook: dict, event_id: str = "evt_" + "1" * 32) -> DeliveryMessage:
    return DeliveryMessage(
        webhook_id=hook["id"],
        event_id=event_id,
        type="pedido.creado",
        body='{"type":"pedido.creado","timestamp":"2026-05-01T12:00:00.000000","data":{}}',
    )


def test_a_message_is_delivered_signed_and_recorded(sqs):
    from webhook_delivery.wiring import create

    receiver = Receiver()
    try:
        hook = endpoint(receiver.url)
        answer = built(create, settings())(sqs_event(sqs, message_to(hook)), CONTEXT)
        assert answer == {"batchItemFailures": []}
        (delivery,) = receiver.received
        assert verified(hook["secreto"], delivery) and delivery.id == "evt_" + "1" * 32
        stored = Deliveries(settings().cloud).get(hook["id"], delivery.id)
        assert (stored.estado, stored.intentos) == ("ENTREGADO", 1)
    finally:
        receiver.stop()


def test_a_failure_comes_back_later_and_the_last_is_a_dead_letter(sqs):
    from webhook_delivery.wiring import create

    receiver = Receiver(then=500)
    try:
        hook = endpoint(receiver.url)
        handler = built(create, settings())
        event = sqs_event(sqs, message_to(hook))
        (record,) = event["Records"]
        assert handler(event, CONTEXT) == {
            "batchItemFailures": [{"itemIdentifier": record["messageId"]}]
        }
        assert queued(sqs) == []  # hidden for its next try (1 s)
        time.sleep(1.2)
        last = sqs_event(sqs, skipped=4)  # the same message, its sixth receive
        (record,) = last["Records"]
        assert record["attributes"]["ApproximateReceiveCount"] == "6"
        # Given up: the function puts it on the dead-letter queue, and is done with it.
        assert handler(last, CONTEXT) == {"batchItemFailures": []}
        stored = Deliveries(settings().cloud).get(hook["id"], "evt_" + "1" * 32)
        assert stored.estado == "FALLIDO"
        assert queued(sqs) == []
        assert len(dead_letters(sqs)) == 1
    finally:
        receiver.stop()


def test_410_turns_the_endpoint_off(sqs):
    from webhook_delivery.wiring import create

    receiver = Receiver(410)
    try:
        hook = endpoint(receiver.url)
        answer = built(create, settings())(sqs_event(sqs, message_to(hook)), CONTEXT)
        assert answer == {"batchItemFailures": []}
        assert WebhookRepository(settings().cloud).get(hook["id"]).activo is False
        assert WebhookRepository(settings().cloud).subscriptions() == []
    finally:
        receiver.stop()


def product_record(old: dict, new: dict) -> dict:
    """A product's MODIFY record, its images the items as the inventory stores them (with
    the units reserved and available it keeps beside the stock since issue 36)."""
    from common.storage import tables as storage
    from inventory.model import ProductModel
    from inventory.rules import Product

    def image(fields: dict) -> dict:
        made = Product(
            sku="WH-1",
            nombre="Caja",
            precio_unitario=3,
            bodega=None,
            descripcion=None,
            id=4,
            **fields,
        )
        return storage.listed(storage.to_item(ProductModel, made)).serialize()

    return {
        "eventID": "record-product",
        "eventName": "MODIFY",
        "eventSource": "aws:dynamodb",
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:1:table/ProductsTable/stream/2026",
        "dynamodb": {"OldImage": image(old), "NewImage": image(new)},
    }


def test_a_product_falling_below_its_threshold_is_one_stock_alert(sqs):
    from webhook_events.wiring import create

    handler = built(create, settings())
    endpoint("http://127.0.0.1:9/a", ["inventario.stock_bajo"])
    fell = product_record(
        {"stock_actual": 6, "umbral_minimo": 5, "stock_reservado": 1},
        {"stock_actual": 4, "umbral_minimo": 5, "stock_reservado": 1},
    )
    assert "stockDisponible" in fell["dynamodb"]["NewImage"]  # as stored
    assert handler({"Records": [fell]}, CONTEXT) == {"events": 1, "queued": 1}
    (message,) = queued(sqs)
    data = event_of(message)["data"]
    assert (data["stockActual"], data["stockReservado"], data["stockDisponible"]) == (4, 1, 3)


def test_a_product_written_before_reservations_is_read_as_the_inventory_reads_it(sqs):
    """Its first change since has an old image with no units reserved or available: read
    as holding none reserved (inventory.model.product_of), not refused."""
    from webhook_events.wiring import create

    handler = built(create, settings())
    endpoint("http://127.0.0.1:9/a", ["inventario.stock_bajo"])
    fell = product_record(
        {"stock_actual": 6, "umbral_minimo": 5}, {"stock_actual": 4, "umbral_minimo": 5}
    )
    old = fell["dynamodb"]["OldImage"]
    del old["stockReservado"], old["stockDisponible"]  # as the earlier version wrote it
    assert handler({"Records": [fell]}, CONTEXT) == {"events": 1, "queued": 1}
    (message,) = queued(sqs)
    data = event_of(message)["data"]
    assert (data["stockActual"], data["stockReservado"], data["stockDisponible"]) == (4, 0, 4)


def test_an_endpoint_gets_no_event_of_a_change_made_before_it(sqs):
    """A record still on its way from the stream when an endpoint is created (a change
    made a minute before it) is not the endpoint's; one made after it is."""
    from webhook_events.wiring import create

    handler = built(create, settings())
    endpoint("http://127.0.0.1:9/a", ["pedido.creado"])
    earlier = order_record("INSERT", None, "PENDIENTE")
    earlier["dynamodb"]["ApproximateCreationDateTime"] = time.time() - 60
    assert handler({"Records": [earlier]}, CONTEXT) == {"events": 1, "queued": 0}
    assert queued(sqs) == []
    later = order_record("INSERT", None, "PENDIENTE")
    later["eventID"] = "record-later"
    assert handler({"Records": [later]}, CONTEXT) == {"events": 1, "queued": 1}


def attempts_of(hook: dict) -> list:
    """The endpoint's attempts, newest first, as GET /api/webhooks/{id}/entregas lists them."""
    return Attempts(settings().cloud).page(hook["id"], 0, 100).items


def dead_letters(sqs) -> list[dict]:
    """What the dead-letter queue holds (read, and left there for the next reader)."""
    dead = sqs.get_queue_url(QueueName="WebhookDeliveryDeadLetterQueue")["QueueUrl"]
    answer = sqs.receive_message(QueueUrl=dead, MaxNumberOfMessages=10, VisibilityTimeout=0)
    return answer.get("Messages", [])


def test_an_attempt_whose_worker_died_is_listed_failed_and_the_next_goes_on(sqs):
    from webhook_delivery.wiring import create

    receiver = Receiver()
    try:
        hook = endpoint(receiver.url)
        # Its first receive's worker died (no answer came back): its visibility ran out.
        event = sqs_event(sqs, message_to(hook), skipped=1)
        assert built(create, settings())(event, CONTEXT) == {"batchItemFailures": []}
        second, first = attempts_of(hook)
        assert (first.intento, first.estado, first.status_code) == (1, "REINTENTO", None)
        assert "stopped" in first.error and first.siguiente_intento == first.timestamp
        assert (second.intento, second.estado) == (2, "ENTREGADO")
        assert second.siguiente_intento is None
    finally:
        receiver.stop()


def test_a_last_attempt_whose_worker_died_is_dead_and_is_sent_again_on_request(sqs):
    from common.platform import aws
    from common.webhooks.queue import DeliveryQueue
    from webhook_delivery.wiring import create
    from webhooks import service

    receiver = Receiver(then=500)
    try:
        hook = endpoint(receiver.url)
        # Every one of its six attempts' workers died; the message comes back once more.
        event = sqs_event(sqs, message_to(hook), skipped=6)
        assert built(create, settings())(event, CONTEXT) == {"batchItemFailures": []}
        assert receiver.received == []  # no seventh attempt: it is a dead letter
        listed = attempts_of(hook)
        assert [a.intento for a in listed] == [6, 5, 4, 3, 2, 1]
        assert [a.estado for a in listed] == ["FALLIDO"] + ["REINTENTO"] * 5
        stored = Deliveries(settings().cloud).get(hook["id"], "evt_" + "1" * 32)
        assert stored.estado == "FALLIDO"
        assert queued(sqs) == [] and len(dead_letters(sqs)) == 1
        with aws.acting_as("WebhooksFunction"):
            resent = service.resend(
                WebhookRepository(settings().cloud),
                Deliveries(settings().cloud),
                DeliveryQueue(settings().cloud, settings().webhooks),
                hook["id"],
                "evt_" + "1" * 32,
                datetime.now(),
            )
        assert (resent.estado, resent.reenvios) == ("PENDIENTE", 1)
    finally:
        receiver.stop()


def test_a_failed_attempt_says_when_the_next_one_is(sqs):
    from webhook_delivery.wiring import create

    receiver = Receiver(then=503)
    try:
        hook = endpoint(receiver.url)
        built(create, settings())(sqs_event(sqs, message_to(hook)), CONTEXT)
        (failed,) = attempts_of(hook)
        assert (failed.estado, failed.status_code) == ("REINTENTO", 503)
        due = datetime.fromisoformat(failed.siguiente_intento)
        assert 0.9 <= (due - datetime.fromisoformat(failed.timestamp)).total_seconds() < 3
    finally:
        receiver.stop()


def test_redriving_the_dead_letters_sends_each_again_once(sqs):
    from common.platform import aws
    from common.webhooks.queue import DeliveryQueue
    from infra.webhook_dead_letters import redrive_all
    from webhook_delivery.wiring import create
    from webhooks import service

    kept, gone = endpoint("http://127.0.0.1:9/kept"), endpoint("http://127.0.0.1:9/gone")
    handler = built(create, settings())
    for hook in (kept, gone):  # each one's every receive died: dead letters
        assert handler(sqs_event(sqs, message_to(hook), skipped=6), CONTEXT) == {
            "batchItemFailures": []
        }
    assert len(dead_letters(sqs)) == 2
    with aws.acting_as("WebhooksFunction"):
        endpoints, deliveries = WebhookRepository(settings().cloud), Deliveries(settings().cloud)
        queue = DeliveryQueue(settings().cloud, settings().webhooks)
        endpoints.remove(gone["id"])
        dead = sqs.get_queue_url(QueueName="WebhookDeliveryDeadLetterQueue")["QueueUrl"]

        def again():
            return redrive_all(
                sqs,
                dead,
                lambda d: service.redrive(endpoints, deliveries, queue, d, datetime.now()),
            )

        assert again() == {service.SENT_AGAIN: 1, service.NOTHING_TO_SEND: 1}
    (message,) = queued(sqs)
    assert json.loads(message["Body"])["webhookId"] == kept["id"]
    assert json.loads(message["Body"])["envio"] == 1
    assert Deliveries(settings().cloud).get(kept["id"], "evt_" + "1" * 32).estado == "PENDIENTE"
    assert dead_letters(sqs) == []


def test_make_webhook_dead_letters_lists_them_and_make_redrive_webhooks_sends_them(
    sqs, emulator, monkeypatch, capsys
):
    from infra import webhook_dead_letters
    from webhook_delivery.wiring import create

    hook = endpoint("http://127.0.0.1:9/down")
    assert built(create, settings())(sqs_event(sqs, message_to(hook), skipped=6), CONTEXT) == {
        "batchItemFailures": []
    }
    capsys.readouterr()  # the function's own log lines
    monkeypatch.setenv("DYNAMODB_PORT", emulator.url.rsplit(":", 1)[1])  # as make run's
    webhook_dead_letters.main(["list"])
    listed = capsys.readouterr()
    assert json.loads(listed.out) == {
        "webhookId": hook["id"],
        "eventId": "evt_" + "1" * 32,
        "type": "pedido.creado",
        "envio": 0,
    }
    assert "1 deliveries waiting" in listed.err
    webhook_dead_letters.main(["redrive"])
    assert "1 sent again" in capsys.readouterr().err
    assert dead_letters(sqs) == [] and len(queued(sqs)) == 1


def request_record(old: str | None, new: str, user_id: int = 31) -> dict:
    """A change of a rights request's item (DataRequestsTable): an erasure's progress."""

    def image(estado: str) -> dict:
        return {
            "id": {"N": "9"},
            "userId": {"N": str(user_id)},
            "tipo": {"S": "SUPRESION"},
            "estado": {"S": estado},
        }

    stream = {"NewImage": image(new), "ApproximateCreationDateTime": time.time()}
    if old is not None:
        stream["OldImage"] = image(old)
    return {
        "eventID": f"record-request-{old}-{new}",
        "eventName": "MODIFY" if old else "INSERT",
        "eventSource": "aws:dynamodb",
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:1:table/DataRequestsTable/stream/2026",
        "dynamodb": stream,
    }


def test_an_erasure_done_tells_the_subscribed_endpoints_whose_data_to_erase(sqs):
    """usuario.eliminado, its data the userId alone, once: when the erasure's request
    becomes COMPLETADA, never for its other changes."""
    from webhook_events.wiring import create

    handler = built(create, settings())
    subscribed = endpoint("http://127.0.0.1:9/a", ["usuario.eliminado"])
    endpoint("http://127.0.0.1:9/b", ["pedido.creado"])
    records = [
        request_record(None, "EN_CURSO"),
        request_record("EN_CURSO", "EN_CURSO"),
        request_record("EN_CURSO", "COMPLETADA"),
        request_record("COMPLETADA", "COMPLETADA"),
    ]
    assert handler({"Records": records}, CONTEXT) == {"events": 1, "queued": 1}
    (message,) = queued(sqs)
    sent = json.loads(message["Body"])
    assert (sent["webhookId"], sent["type"]) == (subscribed["id"], "usuario.eliminado")
    assert event_of(message)["data"] == {"userId": 31}


def test_an_event_about_an_erased_person_is_sent_and_kept_without_their_data(sqs, tables):
    """Queued before the erasure (its stored delivery holds the data), delivered after it: what
    the endpoint gets, and what the delivery keeps for a re-send, has none of it; the
    delivery is found by the person's index."""
    from common.identity.user_ids import TABLE, UserIds
    from webhook_delivery.wiring import create
    from webhook_events.wiring import create as events

    receiver = Receiver()
    try:
        hook = endpoint(receiver.url, ["pedido.estado"])
        built(events, settings())({"Records": [order_record("MODIFY", "A", "B")]}, CONTEXT)
        (message,) = queued(sqs)
        assert json.loads(message["Body"])["userId"] == 3
        assert "ana@example.com" not in message["Body"]  # its stored delivery holds it
        url = sqs.get_queue_url(QueueName="WebhookDeliveryQueue")["QueueUrl"]
        sqs.change_message_visibility(
            QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
        )
        UserIds(lambda: tables, TABLE).erasing(3, 1)
        answer = built(create, settings())(sqs_event(sqs), CONTEXT)
        assert answer == {"batchItemFailures": []}
        (delivery,) = receiver.received
        assert verified(hook["secreto"], delivery)
        data = json.loads(delivery.body)["data"]
        assert (data["id"], data["status"], data["userId"]) == (7, "B", 3)
        assert data["userEmail"] is data["clienteNombre"] is data["destino"] is None
        kept = Deliveries(settings().cloud).get(hook["id"], delivery.id)
        assert "ana@example.com" not in kept.body
        keys = tables.query(
            TableName="WebhookDeliveriesTable",
            IndexName="byUser",
            KeyConditionExpression="userId = :u",
            ExpressionAttributeValues={":u": {"N": "3"}},
        )["Items"]
        assert [item["eventId"]["S"] for item in keys] == [delivery.id]
    finally:
        receiver.stop()


def test_a_delivery_dead_after_its_persons_erasure_is_dead_lettered_without_their_data(sqs):
    """The dead-letter queue kept the original body (14 days, and redriven as it was):
    once the person is erased, the dead letter holds the stripped event."""
    import json

    import boto3

    from common.identity.user_ids import TABLE, UserIds
    from common.webhooks.messages import decoded
    from webhook_delivery.wiring import create

    receiver = Receiver(then=500)
    try:
        hook = endpoint(receiver.url)
        data = {"id": 5, "userId": 77, "userEmail": "ana@example.com", "destino": "Lima"}
        body = json.dumps(
            {"type": "pedido.creado", "timestamp": "2026-05-01T12:00:00", "data": data}
        )
        message = DeliveryMessage(
            webhook_id=hook["id"],
            event_id="evt_" + "7" * 32,
            type="pedido.creado",
            body=body,
            user_id=77,
        )
        client = boto3.client("dynamodb")
        UserIds(lambda: client, TABLE).erasing(77, 1)
        last = sqs_event(sqs, message, skipped=5)  # its sixth receive: the last try
        assert built(create, settings())(last, CONTEXT) == {"batchItemFailures": []}
        (dead,) = dead_letters(sqs)
        kept = json.loads(decoded(dead["Body"]).body)["data"]
        assert kept.get("userEmail") is None and kept.get("destino") is None
        assert kept["id"] == 5
    finally:
        receiver.stop()
