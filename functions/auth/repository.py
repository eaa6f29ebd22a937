"""Sign-in attempts and registrations in DynamoDB (the only PynamoDB code of sign-in),
and the users' ids.

A claim is a read and a write conditional on what was read: two sign-ins for one email at
once cannot both count as its fifth (one of them reads again), so the lock the fifth
earns is in place before any later attempt reaches the pool; two registrations from one
address cannot both take its last place.
"""

import functools
import time
from collections.abc import Callable

from pynamodb.exceptions import DoesNotExist, PutError

from auth.model import AttemptsModel
from auth.rules import (
    REGISTRATION_WINDOW_SECONDS,
    Attempts,
    kept_attempts,
    next_registrations,
    too_many,
    without,
)
from common import counters, storage
from common.counters import CounterModel
from common.errors import TooManyRequests
from common.id_blocks import IdBlocks
from common.settings import Settings

# A claim that keeps losing the race to other sign-ins for the same email (someone is
# hammering it) waits like any locked attempt.
CLAIM_TRIES = 3
COUNTER = "users"


def _saved(item: AttemptsModel, read: AttemptsModel | None) -> bool:
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
    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time):
        storage.bind(settings, AttemptsModel)
        self._clock = clock

    def claim(self, key: str, step: Callable[[Attempts], Attempts]) -> None:
        for _ in range(CLAIM_TRIES):
            item, now = _read(key), self._clock()
            current = (
                kept_attempts(
                    Attempts(int(item.tries), _number(item.locked_until)), item.expires_at, now
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
            if _saved(stored, item):
                return
        raise too_many(1)

    def forget(self, key: str) -> None:
        AttemptsModel(key).delete()


class DynamoRegistrations:
    """The accounts made from each client address in the window (auth.rules)."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time):
        storage.bind(settings, AttemptsModel)
        self._clock = clock

    def add(self, key: str) -> float:
        """One more account made from key's address now (its time); TooManyRequests
        beyond the limit."""
        for _ in range(CLAIM_TRIES):
            item, now = _read(key), self._clock()
            made = next_registrations(_made(item), now)
            if _saved(self._item(key, item, made), item):
                return now
        raise TooManyRequests(
            "TOO_MANY_REGISTRATIONS",
            "Too many accounts are being made from this address at once: try again",
            retry_after_seconds=1,
        )

    def take_back(self, key: str, moment: float) -> None:
        """The registration of `moment` made no account: its place is free again (best
        effort: a place left taken only makes the limit stricter for a while)."""
        for _ in range(CLAIM_TRIES):
            item = _read(key)
            if item is None or _saved(self._item(key, item, without(_made(item), moment)), item):
                return

    @staticmethod
    def _item(key: str, read: AttemptsModel | None, made: tuple[float, ...]) -> AttemptsModel:
        return AttemptsModel(
            key,
            tries=int(read.tries) + 1 if read is not None else 1,
            made=list(made),
            expires_at=int(max(made, default=0) + REGISTRATION_WINDOW_SECONDS) + 1,
        )


def _made(item: AttemptsModel | None) -> tuple[float, ...]:
    return tuple(float(moment) for moment in (item.made or [])) if item is not None else ()  # type: ignore[arg-type]


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
