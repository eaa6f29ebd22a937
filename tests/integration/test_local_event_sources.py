"""The local runtime's event source mappings (infra/local/event_sources.py) against the
emulator, with a function that answers as each test needs: a queue's batches and their
partial failures, a stream read in order, a failing batch split until its bad record is
alone and then given up to the on-failure destination."""

import json
import threading
import time
from pathlib import Path

import boto3
import pytest

from infra import template
from infra.local import event_sources
from infra.local.event_sources import QueueMapping, StreamMapping
from infra.local.functions import LOCAL_PARAMETERS, EventSource, FunctionSpec, functions

REGION = "us-east-1"


def spec(*sources: EventSource) -> FunctionSpec:
    return FunctionSpec(
        name="F",
        handler="f.handler",
        code_dir=Path("."),
        layer_dirs=(),
        environment={},
        timeout_seconds=10,
        memory_mb=128,
        concurrency=1,
        event_sources=sources,
    )


class Function:
    """Records each event; answers what `answer(records)` says: (failed, result)."""

    def __init__(self, answer):
        self.events: list[list[dict]] = []
        self._answer = answer

    def __call__(self, name: str, event: str) -> tuple[bool, str | None]:
        records = json.loads(event)["Records"]
        self.events.append(records)
        return self._answer(records)


@pytest.fixture
def queue(emulator):
    sqs = boto3.client("sqs", endpoint_url=emulator.url, region_name=REGION)
    for url in sqs.list_queues().get("QueueUrls", []):
        sqs.delete_queue(QueueUrl=url)
    template.create_queues(sqs)
    url = sqs.get_queue_url(QueueName="WebhookDeliveryQueue")["QueueUrl"]
    for number in range(3):
        sqs.send_message(QueueUrl=url, MessageBody=f"m{number}")
    return sqs, url


def left(sqs, url: str) -> int:
    attributes = sqs.get_queue_attributes(
        QueueUrl=url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return sum(int(value) for value in attributes.values())


def mapping(emulator, function, reports: bool = True) -> QueueMapping:
    source = EventSource("SQS", "WebhookDeliveryQueue", 10, reports_failures=reports)
    return QueueMapping(spec(source), source, function, emulator.url, REGION)


def test_a_batch_handled_is_deleted_and_lambdas_sqs_event_carries_each_message(emulator, queue):
    sqs, url = queue
    function = Function(lambda records: (False, '{"batchItemFailures": []}'))
    mapping(emulator, function).step()
    (records,) = function.events
    assert sorted(r["body"] for r in records) == ["m0", "m1", "m2"]
    assert records[0]["attributes"]["ApproximateReceiveCount"] == "1"
    assert records[0]["eventSource"] == "aws:sqs"
    assert records[0]["eventSourceARN"].endswith(":WebhookDeliveryQueue")
    assert left(sqs, url) == 0


def test_only_the_messages_an_answer_names_stay_and_a_failed_invocation_keeps_all(emulator, queue):
    sqs, url = queue

    def one_failed(records):
        (bad,) = [r for r in records if r["body"] == "m1"]
        return False, json.dumps({"batchItemFailures": [{"itemIdentifier": bad["messageId"]}]})

    mapping(emulator, Function(one_failed)).step()
    assert left(sqs, url) == 1
    sqs.send_message(QueueUrl=url, MessageBody="m3")
    time.sleep(0.1)
    for answer in ((True, None), (False, '{"batchItemFailures": [{"itemIdentifier": "x"}]}')):
        before = left(sqs, url)
        mapping(emulator, Function(lambda records, a=answer: a)).step()
        assert left(sqs, url) == before  # nothing deleted


def test_a_message_received_max_receive_count_times_goes_to_the_dead_letters(emulator, queue):
    sqs, url = queue

    def fail_now_again(records):
        for record in records:
            sqs.change_message_visibility(
                QueueUrl=url, ReceiptHandle=record["receiptHandle"], VisibilityTimeout=0
            )
        return False, json.dumps(
            {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in records]}
        )

    function = Function(fail_now_again)
    for _ in range(9):
        mapping(emulator, function).step()
    counts = [int(r["attributes"]["ApproximateReceiveCount"]) for r in function.events[-1]]
    assert max(counts) == 8 and len(function.events) == 8
    dead = sqs.get_queue_url(QueueName="WebhookDeliveryDeadLetterQueue")["QueueUrl"]
    assert left(sqs, dead) == 3 and left(sqs, url) == 0


def test_a_stream_is_read_in_order_and_a_bad_record_is_isolated_then_given_up(emulator, tables):
    given_up: list[tuple[str, dict]] = []

    def fails_on_order_3(records):
        ids = [r["dynamodb"]["Keys"]["id"]["N"] for r in records]
        return "3" in ids, None

    function = Function(fails_on_order_3)
    source = EventSource(
        "DynamoDB",
        "OrdersTable",
        batch_size=100,
        starting_position="LATEST",
        bisect_on_error=True,
        retries=1,
        on_failure="WebhookEventsDeadLetterQueue",
    )
    stream = StreamMapping(
        spec(source),
        source,
        function,
        lambda queue, record: given_up.append((queue, record)),
        emulator.url,
        REGION,
    )
    stream.step()  # its place: the end of the stream
    for ident in range(1, 6):
        tables.put_item(TableName="OrdersTable", Item={"id": {"N": str(ident)}})
    stream.step()
    handed = [[r["dynamodb"]["Keys"]["id"]["N"] for r in records] for records in function.events]
    assert handed[0] == ["1", "2", "3", "4", "5"]
    delivered = [ids for ids in handed if "3" not in ids]
    assert [i for ids in delivered for i in ids] == ["1", "2", "4", "5"]
    assert handed.count(["3"]) == 2  # its try and its one retry
    ((queue_name, record),) = given_up
    assert queue_name == "WebhookEventsDeadLetterQueue"
    assert record["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert record["DDBStreamBatchInfo"]["batchSize"] == 1
    event = function.events[0][0]
    assert event["eventName"] == "INSERT" and event["eventSource"] == "aws:dynamodb"
    assert isinstance(event["dynamodb"]["ApproximateCreationDateTime"], float)


def test_receives_at_once_never_hand_one_message_to_two_receivers(emulator, queue, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from moto.sqs.models import Message

    # moto checks a message visible, then marks it received: widen the gap between the two
    # (the emulator runs in this process), as a busy machine's scheduling can.
    marking = Message.mark_received

    def slowly(message, *args, **kwargs):
        time.sleep(0.01)
        return marking(message, *args, **kwargs)

    monkeypatch.setattr(Message, "mark_received", slowly)
    sqs, url = queue
    for start in range(3, 60, 10):
        sqs.send_message_batch(
            QueueUrl=url,
            Entries=[{"Id": str(n), "MessageBody": f"m{n}"} for n in range(start, start + 10)],
        )
    clients = [boto3.client("sqs", endpoint_url=emulator.url, region_name=REGION) for _ in range(8)]

    def drain(client) -> list[str]:
        got = []
        while answer := client.receive_message(QueueUrl=url, MaxNumberOfMessages=3).get("Messages"):
            got += [message["MessageId"] for message in answer]
        return got

    with ThreadPoolExecutor(8) as pool:
        received = [ident for got in pool.map(drain, clients) for ident in got]
    assert len(received) == len(set(received)) == 63


def test_the_deliveries_queue_is_polled_within_the_bound_the_template_sets(
    emulator, queue, monkeypatch
):
    """As many batches at once as WebhookDeliveryConcurrency (the mapping's maximum
    concurrency, the function's reserved concurrency): its pollers are that many, and
    with every invocation held, that many are in flight and no more."""
    monkeypatch.setitem(LOCAL_PARAMETERS, "WebhookDeliveryConcurrency", "3")
    urls = {"GatewayApi": "http://127.0.0.1:1", "NotificationApi": "http://127.0.0.1:2"}
    delivery = functions(urls, REGION, {}, environ={})["WebhookDeliveryFunction"]
    sqs, url = queue
    for number in range(40):
        sqs.send_message(QueueUrl=url, MessageBody=f"more-{number}")
    held, released = threading.Condition(), threading.Event()
    flight = {"now": 0, "most": 0}

    def invoke(name: str, event: str) -> tuple[bool, str | None]:
        with held:
            flight["now"] += 1
            flight["most"] = max(flight["most"], flight["now"])
            held.notify_all()
        released.wait(30)
        with held:
            flight["now"] -= 1
        return False, '{"batchItemFailures": []}'

    stop = event_sources.start(
        {delivery.name: delivery}, invoke, lambda queue, record: None, emulator.url, REGION
    )
    try:
        with held:
            assert held.wait_for(lambda: flight["most"] >= 3, timeout=30), flight
        pollers = [
            thread.name
            for thread in threading.enumerate()
            if thread.name.startswith("sqs-WebhookDeliveryQueue-")
        ]
        assert len(pollers) == 3, pollers
    finally:
        released.set()
        stop()
    assert flight["most"] == 3
