"""Lambda's event source mappings on a laptop: the template's queues and streams polled,
and their function invoked with batches, as Lambda does it (infra/local/functions.py
reads them: EventSource).

- A queue (SQS): pollers, as many as the function may run at once, each receiving up to
  the batch size with the queue's own visibility timeout, invoking the function, then
  deleting what it handled. An invocation that fails leaves its batch on the queue (it
  comes back when its visibility timeout runs out); with ReportBatchItemFailures the
  answer names the messages that failed and only those stay (an answer that names
  something not in the batch fails the whole batch, as on Lambda). What the function
  did to a message's visibility (ChangeMessageVisibility: its next try) holds, and the
  queue's redrive policy moves a message received maxReceiveCount times to its
  dead-letter queue (the emulator does, as SQS does).
- A table's stream (DynamoDB): one poller per stream, reading from its starting position
  in order. A batch that fails is tried again (split in two first, with
  BisectBatchOnFunctionError, so that one bad record is isolated), up to
  MaximumRetryAttempts, then its range is sent to the on-failure destination and the
  stream goes on, as Lambda does.
- A poller never stops on an error: it waits for the emulator while it restarts, and
  finds a stream again after the restart (a new one: the emulator's streams are in
  memory; the data it restored makes no record, infra/local/streams.py).
"""

import json
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from common.platform.logs import get_logger
from infra.local import aws_client
from infra.local.functions import EventSource, FunctionSpec

# (function, event JSON) -> whether it failed, and its answer's JSON.
Invoke = Callable[[str, str], tuple[bool, str | None]]
# (queue, record): a record sent to an on-failure destination.
SendRecord = Callable[[str, dict], None]
# Lambda polls a shard four times a second; locally a stream found empty is read less
# often, down to once a second (each read costs the laptop's cores a few milliseconds:
# three streams read four times a second kept a twentieth of a core busy at rest).
STREAM_POLL_SECONDS = 0.25
STREAM_IDLE_POLL_SECONDS = 1.0
RETRY_PAUSE_SECONDS = 0.5  # a failed stream batch's first retry; doubled up to 8 s
STOP_SECONDS = 1.5  # what the stack's stop waits for its pollers, in all
_logger = get_logger("local-lambda")


class Poller:
    """A thread that runs `step` until stopped, never ended by an error of its own: it
    logs the error (once, until a step succeeds again) and pauses."""

    def __init__(self, name: str, step: Callable[[], None], aws_up: Callable[[], bool]):
        self.name, self._step, self._aws_up = name, step, aws_up
        self.stopped = threading.Event()
        self._failing = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> "Poller":
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self.stopped.is_set():
            try:
                if not self._aws_up():  # it waited a while for the emulator, in vain
                    self.stopped.wait(1.0)
                    continue
                self._step()
                self._failing = False
            except Exception as exc:  # the poller's own failure: never the thread's end
                if not self._failing:
                    _logger.error(
                        f"{self.name}: polling failed, trying again",
                        extra={"error": f"{type(exc).__name__}: {exc}"},
                    )
                self._failing = True
                self.stopped.wait(1.0)

    def stop(self, timeout: float = 15) -> None:
        self.stopped.set()
        self._thread.join(timeout=timeout)


def _arn(service: str, region: str, name: str) -> str:
    return f"arn:aws:{service}:{region}:000000000000:{name}"


def _epoch(value: Any) -> Any:
    """A datetime boto3 parsed, as the epoch seconds Lambda's events carry."""
    return value.timestamp() if isinstance(value, datetime) else value


class QueueMapping:
    """A queue's event source mapping (see the module's text)."""

    def __init__(
        self, spec: FunctionSpec, source: EventSource, invoke: Invoke, endpoint: str, region: str
    ):
        self.spec, self.source, self._invoke, self._region = spec, source, invoke, region
        self._sqs = aws_client("sqs", endpoint, region)
        self._url: str | None = None

    def step(self) -> None:
        """One receive (waiting up to a second for messages) and its batch handled."""
        if self._url is None:
            self._url = self._sqs.get_queue_url(QueueName=self.source.source)["QueueUrl"]
        received = self._sqs.receive_message(
            QueueUrl=self._url,
            MaxNumberOfMessages=min(self.source.batch_size, 10),
            WaitTimeSeconds=1,
            MessageSystemAttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        if received:
            self._handle(received)

    def _handle(self, messages: list[dict]) -> None:
        failed, answer = self._invoke(self.spec.name, json.dumps(self._event(messages)))
        if failed:
            return  # every message comes back after its visibility timeout
        kept = self._failures(answer, {m["MessageId"] for m in messages})
        done = [m for m in messages if m["MessageId"] not in kept]
        for start in range(0, len(done), 10):
            self._sqs.delete_message_batch(
                QueueUrl=self._url,
                Entries=[
                    {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
                    for n, m in enumerate(done[start : start + 10])
                ],
            )

    def _failures(self, answer: str | None, batch: set[str]) -> set[str]:
        """The messages the answer says failed (ReportBatchItemFailures); the whole batch
        when it names one that is not in it, or is not such an answer."""
        if not self.source.reports_failures:
            return set()
        try:
            named = {
                str(item["itemIdentifier"])
                for item in (json.loads(answer or "null") or {}).get("batchItemFailures") or []
            }
        except (ValueError, TypeError, KeyError, AttributeError):
            return batch
        return named if named <= batch else batch

    def _event(self, messages: list[dict]) -> dict:
        arn = _arn("sqs", self._region, self.source.source)
        return {
            "Records": [
                {
                    "messageId": m["MessageId"],
                    "receiptHandle": m["ReceiptHandle"],
                    "body": m["Body"],
                    "attributes": m.get("Attributes", {}),
                    "messageAttributes": m.get("MessageAttributes", {}),
                    "md5OfBody": m.get("MD5OfBody"),
                    "eventSource": "aws:sqs",
                    "eventSourceARN": arn,
                    "awsRegion": self._region,
                }
                for m in messages
            ]
        }


class StreamMapping:
    """A table stream's event source mapping (see the module's text)."""

    def __init__(
        self,
        spec: FunctionSpec,
        source: EventSource,
        invoke: Invoke,
        send_record: SendRecord,
        endpoint: str,
        region: str,
    ):
        self.spec, self.source, self._invoke, self._send = spec, source, invoke, send_record
        self._dynamodb = aws_client("dynamodb", endpoint, region)
        self._streams = aws_client("dynamodbstreams", endpoint, region)
        self._stream: str | None = None
        self._iterator: str | None = None
        self._last: str | None = None  # the sequence number of the last record handed over
        self._idle = STREAM_POLL_SECONDS  # the wait after a read that found nothing
        self.pause = threading.Event()  # set by stop(): a retry's wait ends at once

    def step(self) -> None:
        if self._iterator is None:
            self._iterator = self._first_iterator()
        try:
            answer = self._streams.get_records(
                ShardIterator=self._iterator, Limit=self.source.batch_size
            )
        except Exception:
            self._iterator = None  # an emulator restarted, its iterators gone: find it again
            raise
        self._iterator = answer.get("NextShardIterator")
        records = answer.get("Records", [])
        if records:
            self._process(records)
            self._last = records[-1]["dynamodb"]["SequenceNumber"]
            self._idle = STREAM_POLL_SECONDS
        if len(records) < self.source.batch_size:
            self.pause.wait(STREAM_POLL_SECONDS if records else self._idle)
            if not records:
                self._idle = min(self._idle * 2, STREAM_IDLE_POLL_SECONDS)

    def _first_iterator(self) -> str:
        """Where to read: the starting position of a stream seen the first time; after
        the last record handed over, in the same stream; the start of a new stream (a
        restarted emulator's) that replaced the one read."""
        table = self._dynamodb.describe_table(TableName=self.source.source)["Table"]
        stream = table["LatestStreamArn"]
        (shard,) = self._streams.describe_stream(StreamArn=stream)["StreamDescription"]["Shards"]
        where: dict[str, str] = {"ShardIteratorType": "TRIM_HORIZON"}
        if self._stream is None:
            where = {"ShardIteratorType": self.source.starting_position}
        elif stream == self._stream and self._last is not None:
            where = {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": self._last}
        elif stream != self._stream:
            self._last = None
        self._stream = stream
        return self._streams.get_shard_iterator(
            StreamArn=stream, ShardId=shard["ShardId"], **where
        )["ShardIterator"]

    def _process(self, records: list[dict]) -> None:
        """Every record handed over in order: a failed batch tried again (halved first,
        when bisecting), then given up to the on-failure destination."""
        batches = [records]
        while batches and not self.pause.is_set():
            batch = batches.pop(0)
            if self._invoked(batch):
                continue
            if self.source.bisect_on_error and len(batch) > 1:
                middle = len(batch) // 2
                batches[:0] = [batch[:middle], batch[middle:]]
                continue
            self._give_up(batch)

    def _invoked(self, batch: list[dict]) -> bool:
        """The batch invoked until it succeeds or its tries are spent (MaximumRetryAttempts;
        bisecting splits it after its first failure instead)."""
        tries = 1 if self.source.bisect_on_error and len(batch) > 1 else 1 + self.source.retries
        attempt = 0
        while not self.pause.is_set():
            failed, _ = self._invoke(self.spec.name, json.dumps(self._event(batch)))
            attempt += 1
            if not failed:
                return True
            if self.source.retries >= 0 and attempt >= tries:
                return False
            self.pause.wait(min(RETRY_PAUSE_SECONDS * 2 ** (attempt - 1), 8.0))
        return False

    def _give_up(self, batch: list[dict]) -> None:
        _logger.error(
            f"{self.spec.name}: a batch of {self.source.source}'s stream failed every try",
            extra={"records": len(batch), "destination": self.source.on_failure},
        )
        if self.source.on_failure is not None:
            self._send(self.source.on_failure, self._failure_record(batch))

    def _failure_record(self, batch: list[dict]) -> dict:
        """What Lambda sends a stream mapping's on-failure destination: where the batch
        is in the stream, not the records."""
        sequences = [record["dynamodb"]["SequenceNumber"] for record in batch]
        return {
            "version": "1.0",
            "timestamp": datetime.now(UTC).isoformat(),
            "requestContext": {
                "requestId": str(uuid.uuid4()),
                "functionArn": _arn("lambda", "local", f"function:{self.spec.name}"),
                "condition": "RetryAttemptsExhausted",
                "approximateInvokeCount": 1 + max(self.source.retries, 0),
            },
            "DDBStreamBatchInfo": {
                "shardId": "local",
                "startSequenceNumber": sequences[0],
                "endSequenceNumber": sequences[-1],
                "batchSize": len(batch),
                "streamArn": self._stream,
            },
        }

    def _event(self, batch: list[dict]) -> dict:
        return {
            "Records": [
                {
                    **record,
                    "eventSourceARN": self._stream,
                    "dynamodb": {
                        **record["dynamodb"],
                        "ApproximateCreationDateTime": _epoch(
                            record["dynamodb"].get("ApproximateCreationDateTime")
                        ),
                    },
                }
                for record in batch
            ]
        }

    def stop(self) -> None:
        self.pause.set()


def start(
    specs: dict[str, FunctionSpec],
    invoke: Invoke,
    send_record: SendRecord,
    endpoint: str,
    region: str,
    aws_up: Callable[[], bool] = lambda: True,
) -> Callable[[], None]:
    """Every event source mapping of `specs` polled now; returns what stops them all."""
    pollers: list[Poller] = []
    stops: list[Callable[[], None]] = []
    for spec in specs.values():
        for source in spec.event_sources:
            if source.kind == "SQS":
                count = min(spec.concurrency, source.max_concurrency or spec.concurrency)
                for number in range(count):
                    queue = QueueMapping(spec, source, invoke, endpoint, region)
                    name = f"sqs-{source.source}-{number}"
                    pollers.append(Poller(name, queue.step, aws_up).start())
            else:
                stream = StreamMapping(spec, source, invoke, send_record, endpoint, region)
                stops.append(stream.stop)
                pollers.append(Poller(f"stream-{source.source}", stream.step, aws_up).start())

    def stop_all() -> None:
        for stop in stops:
            stop()
        for poller in pollers:
            poller.stopped.set()
        # A queue's pollers take turns at its long poll (the emulator holds one receive
        # of a queue at a time), so the last would wait out the others' seconds: what is
        # not back by then is left to end on its own (a daemon thread; a batch it
        # receives after this finds the functions stopped, and its messages come back
        # after their visibility timeout, as on AWS when a poller goes).
        deadline = time.monotonic() + STOP_SECONDS
        for poller in pollers:
            poller.stop(max(0.0, deadline - time.monotonic()))

    return stop_all
