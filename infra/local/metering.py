"""Counting the DynamoDB work a request does, from botocore's own events.

Hooked on the process's one DynamoDB client (common.aws), it sees every call the
platform makes: each operation, and the items it read or wrote as DynamoDB bills them
(a key asked for in a batch costs a read whether or not it is there; a query or scan
reads what it evaluates, before any filter).
"""

import contextlib
import threading
from collections import Counter
from dataclasses import dataclass, field

from common import aws
from common.settings import Settings

_WRITES = {"PutItem": 1, "UpdateItem": 1, "DeleteItem": 1}


@dataclass
class Meter:
    operations: Counter = field(default_factory=Counter)
    items_read: int = 0
    items_written: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, operation: str, params: dict, parsed: dict) -> None:
        with self._lock:
            self.operations[operation] += 1
            if operation in ("Query", "Scan"):
                self.items_read += parsed.get("ScannedCount", 0)
            elif operation == "GetItem":
                self.items_read += 1
            elif operation == "BatchGetItem":
                self.items_read += sum(len(request["Keys"])
                                       for request in params["RequestItems"].values())
            elif operation == "TransactWriteItems":
                self.items_written += len(params["TransactItems"])
            elif operation == "BatchWriteItem":
                self.items_written += sum(map(len, params["RequestItems"].values()))
            self.items_written += _WRITES.get(operation, 0)


@contextlib.contextmanager
def metered(settings: Settings | None = None):
    """A Meter of the DynamoDB calls this process makes inside the block."""
    meter = Meter()

    def before(params, context, **_):  # the call's own parameters, kept for after it
        context["metered_params"] = params

    def after(model, parsed, context, **_):
        meter.record(model.name, context.get("metered_params", {}), parsed)

    events = aws.dynamodb(settings or Settings.from_env()).meta.events
    hooks = [("before-parameter-build.dynamodb", before), ("after-call.dynamodb", after)]
    for event, hook in hooks:
        events.register(event, hook, unique_id=f"{event}-{id(meter)}")
    try:
        yield meter
    finally:
        for event, _ in hooks:
            events.unregister(event, unique_id=f"{event}-{id(meter)}")
