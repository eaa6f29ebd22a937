"""Ids handed out from blocks, so that creates do not all write one counter item
(docs/capacity.md).

An execution environment reserves a block of ids with one atomic ADD on its kind's
counter (common.storage.counters) and hands them out one by one. Blocks never overlap, because
the ADD is atomic on the server, so ids stay unique and positive; an id left unused in a
block is never handed out by anyone else, so none is ever reused.

The block's size follows how fast this environment has been handing ids out: about
TARGET_SECONDS worth, at most GROWTH times the last block and at most MAX_BLOCK. Idle,
that is one at a time, so ids stay dense; under load, the counter is written about once
every TARGET_SECONDS per busy environment, whatever the rate of creates, plus a few
times while a new environment's blocks grow to its rate (1, 4, 16 ...). A block not used up
within LIFETIME_SECONDS is dropped: its tail goes unused rather than being handed out
long after higher ids, so an id is never much older than the ids around it.
"""

import math
import os
import threading
import time
from collections.abc import Callable

from common.platform import restore

TARGET_SECONDS = 2.0
LIFETIME_SECONDS = 4.0
MAX_BLOCK = 1000
# Fourfold: a new environment reaches 40 ids a block in 4 reservations, not 7 (when
# Lambda adds hundreds of environments at once, their growing blocks are most of the
# counter's writes), and two quick creates still reserve no more than 5 ids.
GROWTH = 4


class IdBlocks:
    """Ids for one kind in this process. `reserve(n)` adds n to the counter and returns
    its new value: the block is the n ids ending there."""

    def __init__(
        self,
        reserve: Callable[[int], int],
        clock: Callable[[], float] = time.monotonic,
        process: Callable[[], int] = os.getpid,
    ):
        self._reserve, self._clock, self._process = reserve, clock, process
        self._lock = threading.Lock()  # a local server may run requests in threads
        self._next = 1  # the next id to hand out from the block
        self._end = 0  # the block's last id (below _next: no block)
        self._size = 0
        self._reserved_at = 0.0
        self._last_at = 0.0  # when the last id was handed out
        # A forked child must not hand out its parent's block: the two would give the
        # same ids. The block belongs to the process that reserved it; and an environment
        # restored from a snapshot (SnapStart: every restored environment has the
        # snapshot's pid) drops the one the snapshot held.
        self._owner: int | None = None
        restore.on_restore(self.forget)

    def forget(self) -> None:
        """Drop the block held: the next id comes from a new one."""
        with self._lock:
            self._owner = None

    def next_id(self) -> int:
        with self._lock:
            now = self._clock()
            if (
                self._next > self._end
                or self._owner != self._process()
                or now - self._reserved_at > LIFETIME_SECONDS
            ):
                size = self._next_size(now)
                last = self._reserve(size)
                self._next, self._end, self._size = last - size + 1, last, size
                self._reserved_at, self._owner = now, self._process()
            ident = self._next
            self._next += 1
            self._last_at = now
            return ident

    def _next_size(self, now: float) -> int:
        """TARGET_SECONDS of ids at the rate the last block was used at; 1 for the first
        block, and growing at most GROWTH-fold, so that two quick creates do not reserve
        a thousand ids."""
        if self._owner != self._process() or now - self._last_at > TARGET_SECONDS:
            return 1  # the first block, or the first after a pause: idle, one at a time
        used = self._next - (self._end - self._size + 1)
        elapsed = max(now - self._reserved_at, 1e-6)
        # Rounded down: under one id every TARGET_SECONDS is idle, one at a time.
        wanted = math.floor(used * TARGET_SECONDS / elapsed)
        return max(1, min(wanted, GROWTH * self._size, MAX_BLOCK))
