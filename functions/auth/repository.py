"""Sign-in attempts in DynamoDB (the only PynamoDB code of sign-in), and the users' ids.

A claim is a read and a write conditional on what was read: two sign-ins for one email at
once cannot both count as its fifth (one of them reads again), so the lock the fifth
earns is in place before any later attempt reaches the pool.
"""

import functools
import time
from collections.abc import Callable

from pynamodb.exceptions import DoesNotExist, PutError

from auth.model import AttemptsModel
from auth.rules import Attempts, too_many
from common import counters, storage
from common.counters import CounterModel
from common.id_blocks import IdBlocks
from common.settings import Settings

# A claim that keeps losing the race to other sign-ins for the same email (someone is
# hammering it) waits like any locked attempt.
CLAIM_TRIES = 3
COUNTER = "users"


class DynamoAttempts:
    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time):
        storage.bind(settings, AttemptsModel)
        self._clock = clock

    def claim(self, key: str, step: Callable[[Attempts], Attempts]) -> None:
        for _ in range(CLAIM_TRIES):
            item = _read(key)
            current = (
                Attempts(int(item.tries), _number(item.locked_until))
                if item is not None
                else Attempts()
            )
            after = step(current)
            stored = AttemptsModel(
                key,
                tries=after.count,
                locked_until=after.locked_until,
                expires_at=after.expires_at(self._clock()),
            )
            condition = (
                AttemptsModel.tries == current.count
                if item is not None
                else AttemptsModel.email_hash.does_not_exist()
            )
            try:
                stored.save(condition=condition)
                return
            except PutError as exc:
                if not storage.condition_failed(exc):
                    raise
        raise too_many(1)

    def forget(self, key: str) -> None:
        AttemptsModel(key).delete()


def _read(key: str) -> AttemptsModel | None:
    try:
        return AttemptsModel.get(key, consistent_read=True)
    except DoesNotExist:
        return None


def _number(value: object) -> float | None:
    return float(value) if value is not None else None  # type: ignore[arg-type]


def user_ids(settings: Settings) -> Callable[[], int]:
    """The next customer's userId: from a counter of its own, a block at a time, as every
    other id (common.id_blocks), so users and orders never wait on one another."""
    storage.bind(settings, CounterModel)
    return IdBlocks(functools.partial(counters.reserve, COUNTER)).next_id
