"""Password guesses counted in DynamoDB (common.identity.attempts): one item per email and client
address (their SHA-256), in SignInAttemptsTable.

A claim is a read and a write conditional on what was read: two tries for one email at
once cannot both count as its fifth (one of them reads again), so the lock the fifth
earns is in place before any later try reaches the pool.
"""

import math
import time
from collections.abc import Callable

from pynamodb.exceptions import DoesNotExist, PutError, UpdateError

from common.identity.attempts import (
    CALLER_REQUESTS,
    Attempts,
    caller_window,
    kept_attempts,
    too_many,
    too_many_requests,
)
from common.identity.attempts_model import AttemptsModel
from common.platform.settings import Cloud
from common.storage import tables as storage

# A claim that keeps losing the race to other sign-ins for the same email (someone is
# hammering it) waits like any locked attempt.
CLAIM_TRIES = 3


def saved(item: AttemptsModel, read: AttemptsModel | None) -> bool:
    """Save `item` on the condition that the one `read` (None: none) is still there as
    read; False when another write came first."""
    condition = (
        AttemptsModel.tries == read.tries
        if read is not None
        else AttemptsModel.key.does_not_exist()
    )
    try:
        item.save(condition=condition)
        return True
    except PutError as exc:
        if not storage.condition_failed(exc):
            raise
        return False


class DynamoAttempts:
    def __init__(self, cloud: Cloud, clock: Callable[[], float] = time.time):
        storage.bind(cloud, AttemptsModel)
        self._clock = clock

    def claim(self, key: str, step: Callable[[Attempts], Attempts]) -> None:
        for _ in range(CLAIM_TRIES):
            item, now = read(key), self._clock()
            current = (
                kept_attempts(
                    Attempts(int(item.tries), number(item.locked_until)), item.expires_at, now
                )
                if item is not None
                else Attempts()
            )
            after = step(current)
            stored = AttemptsModel(
                key,
                tries=after.count,
                locked_until=after.locked_until,
                expires_at=after.expires_at(now),
            )
            if saved(stored, item):
                return
        raise too_many(1)

    def forget(self, key: str) -> None:
        AttemptsModel(key).delete()

    def count_request(self, sub: str) -> None:
        """One more request of this caller in the current window (one conditional write:
        requests sent at once get no more through); TooManyRequests past the limit."""
        now = self._clock()
        key, ends = caller_window(sub, now)
        try:
            AttemptsModel(key).update(
                actions=[AttemptsModel.tries.add(1), AttemptsModel.expires_at.set(ends)],
                condition=AttemptsModel.key.does_not_exist()
                | (AttemptsModel.tries < CALLER_REQUESTS),
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise
            raise too_many_requests(math.ceil(ends - now)) from None


def read(key: str) -> AttemptsModel | None:
    try:
        return AttemptsModel.get(key, consistent_read=True)
    except DoesNotExist:
        return None


def number(value: object) -> float | None:
    return float(value) if value is not None else None  # type: ignore[arg-type]
