"""Changes applied to the figures, a run at a time: what is held of their items read, the
plan made (dashboard_figures.figures), and written in one transaction. A write that
finds something read has changed meanwhile (another writer of the same items) is made
again from a new read; the changes count once either way."""

import random
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from common.dashboard import layout
from dashboard_figures.figures import Change, Contended, Counted, Key, Newest, Plan, plan

# Changes a transaction applies at most: their shares, the lists and hours they touch and
# a counter item stay under TransactWriteItems' 100 items.
RUN = 25
MAX_ATTEMPTS = 6


class Store(Protocol):
    def read(
        self, changes: Sequence[Change], shard: int
    ) -> tuple[dict[Key, Counted], dict[str, Newest], dict]: ...

    def write(self, moved: Plan, shard: int) -> None: ...


def apply(changes: Sequence[Change], store: Store, clock: Callable[[], datetime]) -> int:
    """Every change applied, in order; returns how many items' shares were written.
    Raises when a run could not be written in MAX_ATTEMPTS (the batch is then retried)."""
    written = 0
    for start in range(0, len(changes), RUN):
        written += _run(changes[start : start + RUN], store, clock)
    return written


def _run(run: Sequence[Change], store: Store, clock: Callable[[], datetime]) -> int:
    for _ in range(MAX_ATTEMPTS):
        # Any counter item will do (a figure is their sum): a different one at each
        # run, so that no item takes every run's write.
        shard = random.randrange(layout.COUNTER_SHARDS)
        shares, lists, counter = store.read(run, shard)
        moved = plan(run, shares, lists, counter, clock())
        if moved.empty():
            return 0
        try:
            store.write(moved, shard)
        except Contended:
            continue
        return len(moved.shares)
    raise RuntimeError(f"the figures kept changing under {len(run)} changes; retry the batch")
