"""A route without a token limited per client address (the public tracking look-up:
docs/api.md#tracking): at most `limit` requests from one address in any `window_seconds`,
counted as the sign-in routes count registrations per address (auth's registrations):
in SignInAttemptsTable, one item per address, keyed by a SHA-256 of what is counted and
the address (common.identity.attempts.hashed_key: the table holds no address), holding
when each request still in the window was let through.

A request is a read and a write conditional on what was read, so two at once cannot
both take an address's last place: one reads again. The item is forgotten by the table's
TTL once its newest request leaves the window.
"""

import math
import time
from collections.abc import Callable

from common.identity.attempts import hashed_key
from common.identity.attempts_model import AttemptsModel
from common.identity.attempts_repository import read, saved
from common.platform.errors import TooManyRequests
from common.platform.settings import Cloud
from common.storage import tables as storage

# Rounds of a request that keeps losing its address's item to others from the same
# address at once; past them it is refused as one too many (429, to retry at once).
TRIES = 8


def next_in_window(
    made: tuple[float, ...], now: float, limit: int, window_seconds: float, code: str
) -> tuple[float, ...]:
    """When the requests still in the window were let through, with one more `now`; or
    429 when the window holds `limit` already, to retry when its oldest leaves it."""
    recent = tuple(sorted(moment for moment in made if moment > now - window_seconds))
    if len(recent) >= limit:
        wait = max(1, math.ceil(recent[-limit] + window_seconds - now))
        raise TooManyRequests(
            code,
            f"Too many requests from this address: try again in {wait} seconds",
            retry_after_seconds=wait,
        )
    return (*recent, now)


class AddressWindow:
    def __init__(
        self,
        cloud: Cloud,
        name: str,
        limit: int,
        window_seconds: float,
        code: str,
        clock: Callable[[], float] = time.time,
    ):
        """`name`: what is counted (part of each item's key); `code`: the 429's."""
        storage.bind(cloud, AttemptsModel)
        self._name, self._limit, self._window, self._code = name, limit, window_seconds, code
        self._clock = clock

    def take(self, address: str) -> None:
        """One more request from `address`, or 429 when it has had its `limit`."""
        key = hashed_key(self._name, address)
        for _ in range(TRIES):
            item, now = read(key), self._clock()
            made = tuple(float(m) for m in (item.made or [])) if item is not None else ()  # type: ignore[arg-type]
            kept = next_in_window(made, now, self._limit, self._window, self._code)
            stored = AttemptsModel(
                key,
                tries=int(item.tries) + 1 if item is not None else 1,
                made=list(kept),
                expires_at=math.ceil(max(kept) + self._window) + 1,
            )
            if saved(stored, item):
                return
        raise TooManyRequests(
            self._code,
            "Too many requests from this address at once: try again",
            retry_after_seconds=1,
        )
