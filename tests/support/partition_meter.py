"""The emulator's count of writes per partition key, as the benchmarks and tests read it
(a stack started with DYNAMODB_PARTITION_METER or DYNAMODB_PARTITION_WRITE_RATE:
infra/local/partition_writes.py)."""

import time

import requests

from infra.local.settings import PARTITION_WRITES_PATH
from tests.support.stack_process import StackProcess

SETTLED_SECONDS = 1.5  # no write for this long: a burst's writes have all landed


def counted(stack: StackProcess, top: int) -> dict:
    """The count now: every key's writes in all, and the `top` keys written most."""
    return requests.get(f"{stack.dynamodb}{PARTITION_WRITES_PATH}?top={top}", timeout=30).json()


def settled(stack: StackProcess, top: int) -> dict:
    """The count once no write has landed for SETTLED_SECONDS."""
    last, since = None, time.monotonic()
    while True:
        now = counted(stack, top)
        if last is None or now["writes"] != last["writes"]:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= SETTLED_SECONDS:
            return now
        time.sleep(0.25)


def zeroed(stack: StackProcess) -> None:
    """Start the count again from nothing."""
    requests.delete(stack.dynamodb + PARTITION_WRITES_PATH, timeout=30)
