"""DynamoDB Streams in the emulator, corrected where the platform can tell (installed by
infra/local/emulator.py; the webhook events are read from these streams).

moto writes a stream record inside every item write of a table with a stream, and the
local stack's webhook events are made from those records, so a record must mean what
it means on AWS: a change that was committed.

- A transaction that fails while writing is undone item by item (emulator.py), and a
  write the partition throttle refuses is put back: the writes and their undoing both
  made records, so a refused write would have made an event. Here the records a
  request made are taken back with it (`mark`, `rewind`).
- Restoring LOCAL_DATA_DIR at start puts every saved item back, one write each: every
  order would have been "created" again on every start. Records made before the stack
  serves are dropped (`forget`).
- A write that changes nothing makes no record, as DynamoDB writes none.
- Records are kept 24 hours, as DynamoDB keeps them (moto kept every record of every
  write for the life of the process), and a shard iterator lives 15 minutes (moto kept
  every one it handed out, one per GetRecords: a poller four times a second leaked
  hundreds of megabytes a day).
"""

import time
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.models.table import StreamRecord, StreamShard, Table
from moto.dynamodbstreams.models import DynamoDBStreamsBackend, ShardIterator

RETENTION = timedelta(hours=24)
ITERATOR_SECONDS = 15 * 60

# (a table's stream shard, how many records it had made by then)
Marks = list[tuple[StreamShard, int]]


def _dropped(shard: StreamShard) -> int:
    """How many of the shard's records are gone from its front (trimmed or forgotten)."""
    return getattr(shard, "_dropped", 0)


def _made(shard: StreamShard) -> int:
    """Every record the shard ever made: the next one's sequence number is past these."""
    return _dropped(shard) + len(shard.items)


def _drop(shard: StreamShard, count: int) -> None:
    del shard.items[:count]
    shard._dropped = _dropped(shard) + count  # type: ignore[attr-defined]  # kept on moto's


def _trim(shard: StreamShard) -> None:
    """Drop the records older than RETENTION (the oldest are first)."""
    oldest = datetime.now(UTC).replace(tzinfo=None) - RETENTION
    stale = 0
    for record in shard.items:
        if record.record["dynamodb"]["ApproximateCreationDateTime"] >= oldest:
            break
        stale += 1
    if stale:
        _drop(shard, stale)


def add(self: StreamShard, old: Item | None, new: Item | None) -> None:
    """StreamShard.add: a record of one committed change, none for a write that changed
    nothing; sequence numbers keep growing past the dropped records."""
    if old is not None and new is not None and old.attrs == new.attrs:
        return
    _trim(self)
    view = self.table.stream_specification["StreamViewType"]  # type: ignore[index]
    event = "INSERT" if old is None else "REMOVE" if new is None else "MODIFY"
    sequence = self.starting_sequence_number + _made(self)
    self.items.append(StreamRecord(self.table, view, event, old, new, sequence))


def get(self: StreamShard, start: int, quantity: int) -> list[dict[str, Any]]:
    """StreamShard.get: the records from sequence number `start` (from the oldest kept,
    when it was trimmed), at most `quantity`."""
    first = max(0, start - self.starting_sequence_number - _dropped(self))
    return [record.to_json() for record in self.items[first : first + quantity]]


_moto_iterator_init = ShardIterator.__init__


def _iterator_init(
    self: ShardIterator,
    backend: DynamoDBStreamsBackend,
    shard: StreamShard,
    kind: str,
    sequence_number: int | None = None,
) -> None:
    """ShardIterator.__init__, LATEST past the dropped records too, and stamped with its
    birth so that it can expire."""
    _moto_iterator_init(self, backend, shard, kind, sequence_number)
    if kind == "LATEST":
        self.sequence_number = shard.starting_sequence_number + _made(shard)
    self._born = time.monotonic()  # type: ignore[attr-defined]


_moto_get_records = DynamoDBStreamsBackend.get_records


def get_records(self: DynamoDBStreamsBackend, iterator_arn: str, limit: int) -> dict[str, Any]:
    """DynamoDBStreamsBackend.get_records, forgetting iterators older than 15 minutes."""
    now = time.monotonic()
    for arn, iterator in list(self.shard_iterators.items()):
        if now - getattr(iterator, "_born", now) > ITERATOR_SECONDS and arn != iterator_arn:
            del self.shard_iterators[arn]
    return _moto_get_records(self, iterator_arn, limit)


def install() -> None:
    """The corrections above, on moto's classes (the emulator's process only)."""
    StreamShard.add = add  # type: ignore[method-assign]
    StreamShard.get = get  # type: ignore[method-assign]
    ShardIterator.__init__ = _iterator_init  # type: ignore[method-assign,assignment]
    DynamoDBStreamsBackend.get_records = get_records  # type: ignore[method-assign]


def mark(tables: Iterable[Table]) -> Marks:
    """Where the streams of `tables` stand, before a request that may be taken back."""
    return [(t.stream_shard, _made(t.stream_shard)) for t in tables if t.stream_shard is not None]


def rewind(marks: Marks) -> None:
    """Take back every record made since `marks` (the request was undone): called while
    the request still holds its tables' locks, which a stream read takes too, so no
    reader has seen them."""
    for shard, made in marks:
        del shard.items[max(0, made - _dropped(shard)) :]


def forget(tables: Iterable[Table]) -> None:
    """Drop every record the tables' streams hold (the writes that restored the data)."""
    for table in tables:
        if table.stream_shard is not None:
            _drop(table.stream_shard, len(table.stream_shard.items))
