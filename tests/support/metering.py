"""Counting the DynamoDB work a request does, from botocore's own events.

Hooked on the functions' DynamoDB clients (common.platform.aws's and PynamoDB's), it sees every
call the platform makes: each operation, and the items it read or wrote as DynamoDB bills them
(a key asked for in a batch costs a read whether or not it is there; a query or scan
reads what it evaluates, before any filter).

Request units are estimated the way on-demand DynamoDB bills items of up to 1 KB (all of
this platform's are): a write 1 WRU, a write inside a transaction 2, a failed
conditional write 1 all the same; a strongly consistent read of a key 1 RRU, an
eventually consistent one 0.5; a query the size of what it read, rounded up to 4 KB,
0.5 RRU per 4 KB eventually consistent (1 consistent), at least one unit of 4 KB.

Writes of the counters' table (a block of ids, common.storage.id_blocks) are counted apart, in
`counter_writes`: one create in a block's size reserves a block. So are reads of the
stock-check breaker's shared state (common.stock.breaker), in `breaker_reads`: an
environment reads it at most once a second whatever its traffic, so whether one falls
inside a request depends on the time since the last, not on the request.
"""

import contextlib
import math
import threading
from collections import Counter
from dataclasses import dataclass, field

from pynamodb.connection import Connection

from common.platform import aws

_WRITES = {"PutItem": 1, "UpdateItem": 1, "DeleteItem": 1}
COUNTERS_TABLE = "CountersTable"
BREAKERS_TABLE = "CircuitBreakersTable"


def item_bytes(item: dict) -> int:
    """An item's size as DynamoDB counts it, near enough: each attribute's name plus its
    value (a string's UTF-8 bytes, a number's about one byte per two digits, a list or map
    3 bytes and 1 per element beside what they hold)."""
    return sum(len(name.encode("utf-8")) + _value_bytes(value) for name, value in item.items())


def _value_bytes(value: dict) -> int:
    ((kind, content),) = value.items()
    if kind == "S":
        return len(content.encode("utf-8"))
    if kind == "N":
        return len(content.lstrip("-").replace(".", "")) // 2 + 2
    if kind == "M":
        return 3 + len(content) + item_bytes(content)
    if kind == "L":
        return 3 + len(content) + sum(_value_bytes(element) for element in content)
    if kind in ("BOOL", "NULL"):
        return 1
    return len(str(content))


@dataclass
class Meter:
    operations: Counter = field(default_factory=Counter)
    items_read: int = 0
    items_written: int = 0
    read_units: float = 0.0
    write_units: float = 0.0
    counter_writes: int = 0
    breaker_reads: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, operation: str, params: dict, parsed: dict) -> None:
        consistent = 1.0 if params.get("ConsistentRead") else 0.5
        with self._lock:
            if params.get("TableName") == COUNTERS_TABLE and operation == "UpdateItem":
                self.counter_writes += 1
                return
            if params.get("TableName") == BREAKERS_TABLE and operation == "GetItem":
                self.breaker_reads += 1
                return
            self.operations[operation] += 1
            if operation in ("Query", "Scan"):
                read = parsed.get("ScannedCount", 0)
                size = sum(map(item_bytes, parsed.get("Items", [])))
                self.read_units += max(1, math.ceil(size / 4096)) * consistent
            elif operation == "GetItem":
                read = 1
                self.read_units += consistent
            elif operation == "BatchGetItem":
                requests = params["RequestItems"].values()
                read = sum(len(request["Keys"]) for request in requests)
                self.read_units += sum(
                    len(request["Keys"]) * (1.0 if request.get("ConsistentRead") else 0.5)
                    for request in requests
                )
            else:
                read = 0
            self.items_read += read
            if operation == "TransactWriteItems":
                written = len(params["TransactItems"])
                self.write_units += 2 * written
            elif operation == "BatchWriteItem":
                written = sum(map(len, params["RequestItems"].values()))
                self.write_units += written
            else:
                written = _WRITES.get(operation, 0)
                self.write_units += written
            self.items_written += written


@contextlib.contextmanager
def metered():
    """A Meter of the DynamoDB calls this process's functions make inside the block,
    through any of their clients: ours (common.platform.aws builds one per function) and
    PynamoDB's (each connection's, hooked the first time the block uses it, through
    PynamoDB's own `Connection.client`)."""
    meter = Meter()

    def before(params, context, **_):  # the call's own parameters, kept for after it
        context["metered_params"] = params

    def after(model, parsed, context, **_):
        meter.record(model.name, context.get("metered_params", {}), parsed)

    hooks = [("before-parameter-build.dynamodb", before), ("after-call.dynamodb", after)]
    hooked: dict[int, object] = {}
    lock = threading.Lock()

    def hook(client) -> None:
        with lock:
            if id(client) in hooked:
                return
            hooked[id(client)] = client
        for event, handler in hooks:
            client.meta.events.register(event, handler, unique_id=f"{event}-{id(meter)}")

    for client in aws.clients("dynamodb"):
        hook(client)
    built = Connection.client

    def hooking(connection):
        client = built.fget(connection)
        hook(client)
        return client

    Connection.client = property(hooking)  # type: ignore[method-assign,assignment]
    try:
        yield meter
    finally:
        Connection.client = built  # type: ignore[method-assign]
        for client in hooked.values():
            for event, _ in hooks:
                client.meta.events.unregister(event, unique_id=f"{event}-{id(meter)}")
