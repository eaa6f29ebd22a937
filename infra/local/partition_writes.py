"""Writes per partition key, as DynamoDB counts them against a partition, and throttling
above a rate, as DynamoDB throttles (docs/capacity.md, docs/development.md).

DynamoDB serves one partition key at about 1,000 write units a second, in the table and
in each of its indexes alike; a write the table or one of its indexes cannot take is
refused with ProvisionedThroughputExceededException (HTTP 400), which the SDKs retry.
The emulator (infra/local/emulator.py) sees every write request whole, holding its
tables' locks: it reads the items the request names before and after it runs, and this
module says which partitions that wrote:

- the table's partition of each item named, always (a write whose condition fails is
  billed all the same);
- in each global secondary index: the old key's partition when the item leaves it or
  changes key, the new key's when it enters it or changes key, and the one key's when it
  stays and an attribute the index projects changed (an index that projects keys only
  is not written when other attributes change).

With a rate, each partition key has a token bucket of `burst` writes refilled at `rate`
a second; a request that would take any key below zero is undone and refused, and
takes nothing from any bucket, as a throttled request consumes no capacity.

Loaded only when the count is asked for (DYNAMODB_PARTITION_METER or
DYNAMODB_PARTITION_WRITE_RATE: infra/local/aws_process.py, and the tests that meter): the
emulator calls `PartitionWrites.metered` and `.answer` on the one it is given, and
imports nothing from here (tests/unit/test_private_uses.py checks that `make run`'s
emulator does not load it).
"""

import copy
import json
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import parse_qs

from moto.core import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import DynamoDBBackend, dynamodb_backends
from moto.dynamodb.models.table import Table

from common.platform.ids import ascii_digits
from infra.local import streams
from infra.local.servers import json_answer
from infra.local.settings import PARTITION_WRITES_PATH

__all__ = ["PARTITION_WRITES_PATH", "Partition", "PartitionWrites", "written"]

THROTTLED_TYPE = "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"
THROTTLED_MESSAGE = (
    "The level of configured provisioned throughput for the table was "
    "exceeded. Consider increasing your provisioning level with the "
    "UpdateTable API."
)


@dataclass(frozen=True, order=True)
class Partition:
    """One partition key: of a table (`index` None) or of one of its indexes."""

    table: str
    index: str | None
    key: str  # the partition key's value, as text

    @property
    def where(self) -> str:
        return self.table if self.index is None else f"{self.table}/index/{self.index}"


def _value(attribute: dict) -> str:
    ((_, content),) = attribute.items()
    return str(content)


def written(table, key: dict, before: dict | None, after: dict | None) -> list[Partition]:
    """The partitions a write of the item at `key` in `table` (moto's Table) wrote, from
    the item as it was and as it is (DynamoDB JSON, None: absent)."""
    partitions = [Partition(table.name, None, _value(key[table.hash_key_attr]))]
    for index in table.global_indexes:
        names = [key["AttributeName"] for key in index.schema]
        hash_name = next(key["AttributeName"] for key in index.schema if key["KeyType"] == "HASH")
        old = _index_key(before, names)
        new = _index_key(after, names)
        # An index key is only found in an item that is there (_index_key of None: None).
        if old is not None and new is not None and old == new:
            assert before is not None and after is not None
            if _projected_change(index, before, after):
                partitions.append(Partition(table.name, index.name, _value(after[hash_name])))
            continue
        if old is not None:
            assert before is not None
            partitions.append(Partition(table.name, index.name, _value(before[hash_name])))
        if new is not None:
            assert after is not None
            partitions.append(Partition(table.name, index.name, _value(after[hash_name])))
    return partitions


def _index_key(item: dict | None, names: list[str]) -> tuple | None:
    """The item's key in an index, or None when the item is not in it (sparse)."""
    if item is None or any(name not in item for name in names):
        return None
    return tuple(_value(item[name]) for name in names)


def _projected_change(index, before: dict, after: dict) -> bool:
    projection = index.projection or {}
    kind = projection.get("ProjectionType", "ALL")
    if kind == "KEYS_ONLY":
        return False
    if kind == "INCLUDE":
        names = projection.get("NonKeyAttributes", [])
        return any(before.get(name) != after.get(name) for name in names)
    return before != after


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class _Count:
    writes: int = 0
    second: int = -1
    in_second: int = 0
    peak: int = 0  # the most writes in one clock second


@dataclass
class PartitionWrites:
    """What every partition key was written, and a throttle when `rate` is set."""

    rate: float | None = None  # writes a second per key; None: no throttle
    burst: float | None = None  # the bucket's size; default: one second of `rate`
    clock: Callable[[], float] = time.monotonic
    throttled: int = 0  # requests refused
    _counts: dict[Partition, _Count] = field(default_factory=dict)
    _buckets: dict[Partition, _Bucket] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def admit(self, partitions: Iterable[Partition]) -> bool:
        """Count the writes of one request, unless the throttle refuses it (False: then
        nothing is counted or taken)."""
        wanted = Counter(partitions)
        now = self.clock()
        with self._lock:
            if self.rate is not None:
                size = self.burst if self.burst is not None else self.rate
                buckets = {}
                for partition, count in wanted.items():
                    bucket = self._buckets.get(partition) or _Bucket(size, now)
                    tokens = min(size, bucket.tokens + (now - bucket.at) * self.rate)
                    if tokens < count:
                        self.throttled += 1
                        return False
                    buckets[partition] = _Bucket(tokens - count, now)
                self._buckets.update(buckets)
            second = int(now)
            for partition, count in wanted.items():
                counted = self._counts.setdefault(partition, _Count())
                counted.writes += count
                if counted.second != second:
                    counted.second, counted.in_second = second, 0
                counted.in_second += count
                counted.peak = max(counted.peak, counted.in_second)
            return True

    def report(self, top: int = 20) -> dict:
        """The total, the requests throttled, and the `top` keys by writes."""
        with self._lock:
            counts = sorted(self._counts.items(), key=lambda pair: -pair[1].writes)
            total = sum(counted.writes for _, counted in counts)
            return {
                "writes": total,
                "throttled": self.throttled,
                "keys": len(counts),
                "rate": self.rate,
                "burst": self.burst,
                "hottest": [
                    {
                        "table": p.table,
                        "index": p.index,
                        "key": p.key,
                        "writes": c.writes,
                        "peakPerSecond": c.peak,
                    }
                    for p, c in counts[:top]
                ],
            }

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()
            self._buckets.clear()
            self.throttled = 0

    def answer(self, environ, start_response) -> list[bytes]:
        """The emulator's PARTITION_WRITES_PATH: GET the report (`?top=N`), DELETE zeroes."""
        if environ.get("REQUEST_METHOD") == "DELETE":
            self.reset()
            return json_answer(start_response, "200 OK", {})
        top = parse_qs(environ.get("QUERY_STRING", "")).get("top", ["20"])[0]
        shown = int(top) if ascii_digits(top) else 20
        return json_answer(start_response, "200 OK", self.report(shown))

    def metered(self, app, environ, start_response, operation: str, body: bytes) -> list:
        """Run a request through `app` (the emulator holds its tables); a write request's
        partitions are counted, and if the throttle refuses them, every item it named is
        put back as it was and the answer is DynamoDB's, throttled."""
        if operation not in _ITEM_WRITES:
            return list(app(environ, start_response))
        match = _REGION.search(environ.get("HTTP_AUTHORIZATION", ""))
        region = match[1] if match else os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
        backend = dynamodb_backends[DEFAULT_ACCOUNT_ID][region]
        try:
            named = _named_items(backend, operation, json.loads(body or b"{}"))
        except Exception:  # noqa: BLE001 - a request moto refuses: nothing is written
            named = []
        before = [_stored(backend, table, key) for table, key in named]
        marks = streams.mark({table for table, _ in named})
        answered: dict = {}
        chunks: list[bytes] = []

        def hold(status, headers, exc_info=None):
            answered.update(status=status, headers=headers)
            return chunks.append

        chunks.extend(app(environ, hold))
        partitions = [
            partition
            for (table, key), was in zip(named, before, strict=True)
            for partition in written(table, key, was, _stored(backend, table, key))
        ]
        if self.admit(partitions):
            start_response(answered["status"], answered["headers"])
            return chunks
        for (table, key), was in zip(named, before, strict=True):
            _restore(backend, table, key, was)
        streams.rewind(marks)
        return json_answer(
            start_response,
            "400 Bad Request",
            {"__type": THROTTLED_TYPE, "message": THROTTLED_MESSAGE},
        )


# Requests that write items: the ones whose partitions are counted, and throttled.
_ITEM_WRITES = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
_REGION = re.compile(r"Credential=[^/,]+/[^/,]+/([^/,]+)/")


def _named_items(backend: DynamoDBBackend, operation: str, request: dict) -> list[tuple]:
    """(moto's Table, the item's key) for each item a write request names."""
    named = []

    def add(table_name: str, key_or_item: dict) -> None:
        table = backend.get_table(table_name)
        key = {table.hash_key_attr: key_or_item[table.hash_key_attr]}
        if table.range_key_attr is not None:
            key[table.range_key_attr] = key_or_item[table.range_key_attr]
        named.append((table, key))

    if operation == "PutItem":
        add(request["TableName"], request["Item"])
    elif operation in ("UpdateItem", "DeleteItem"):
        add(request["TableName"], request["Key"])
    elif operation == "BatchWriteItem":
        for table_name, writes in request["RequestItems"].items():
            for write in writes:
                if "PutRequest" in write:
                    add(table_name, write["PutRequest"]["Item"])
                else:
                    add(table_name, write["DeleteRequest"]["Key"])
    else:  # TransactWriteItems: a condition check is billed as a write too
        for entry in request["TransactItems"]:
            ((kind, op),) = entry.items()
            add(op["TableName"], op["Item"] if kind == "Put" else op["Key"])
    return named


def _stored(backend: DynamoDBBackend, table: Table, key: dict) -> dict | None:
    item = backend.get_item(table.name, key)
    return None if item is None else copy.deepcopy(item.to_json()["Attributes"])


def _restore(backend: DynamoDBBackend, table: Table, key: dict, before: dict | None) -> None:
    if before is not None:
        backend.put_item(table.name, before)
    elif backend.get_item(table.name, key) is not None:
        backend.delete_item(table.name, key)
