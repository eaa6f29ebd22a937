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
"""

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# Where the emulator answers the count (GET, `?top=N`) and zeroes it (DELETE).
PARTITION_WRITES_PATH = "/_local/partition-writes"
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
