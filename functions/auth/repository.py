"""Registrations in DynamoDB (the only PynamoDB code of sign-in; its attempts are counted
by the layer's common.identity.attempts_repository), and the users' ids.

A claim is a read and a write conditional on what was read: two registrations from one
address cannot both take its last place.
"""

import functools
import time
from collections.abc import Callable

from auth.rules import REGISTRATION_WINDOW_SECONDS, next_registrations, without
from common.identity.attempts_model import AttemptsModel
from common.identity.attempts_repository import CLAIM_TRIES, DynamoAttempts, read, saved
from common.platform.errors import TooManyRequests
from common.platform.settings import Cloud
from common.storage import counters
from common.storage import tables as storage
from common.storage.counters import CounterModel
from common.storage.id_blocks import IdBlocks

COUNTER = "users"
# Sign-in's attempts are counted by the layer's (the users function counts there too).
__all__ = ["COUNTER", "DynamoAttempts", "DynamoRegistrations", "user_ids"]


class DynamoRegistrations:
    """The accounts made from each client address in the window (auth.rules)."""

    def __init__(self, cloud: Cloud, clock: Callable[[], float] = time.time):
        storage.bind(cloud, AttemptsModel)
        self._clock = clock

    def add(self, key: str) -> float:
        """One more account made from key's address now (its time); TooManyRequests
        beyond the limit."""
        for _ in range(CLAIM_TRIES):
            item, now = read(key), self._clock()
            made = next_registrations(_made(item), now)
            if saved(self._item(key, item, made), item):
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
            item = read(key)
            if item is None or saved(self._item(key, item, without(_made(item), moment)), item):
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


def user_ids(cloud: Cloud) -> Callable[[], int]:
    """The next customer's userId: from a counter of its own, a block at a time, as every
    other id (common.storage.id_blocks), so users and orders never wait on one another."""
    storage.bind(cloud, CounterModel)
    return IdBlocks(functools.partial(counters.reserve, COUNTER)).next_id
