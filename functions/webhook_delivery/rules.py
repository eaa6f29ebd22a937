"""What an attempt's answer means, and when the next one is (docs/api.md#webhooks).

A 2xx within the deadline (sender.TIMEOUT_SECONDS from the attempt's start, the name's
lookup and the connection included) is delivered. 410 Gone turns the endpoint off: nothing more is
sent to it. Anything else (another status, a redirect, which is never followed, no
answer within the timeout, a refused or reset connection, a target that is no longer
allowed) is tried again after the next step of the schedule (WEBHOOK_RETRY_SECONDS:
about 5 s, 1 min, 10 min, 1 h, 6 h), and once the schedule is spent the delivery is
given up: a dead letter.
"""

import enum
from dataclasses import dataclass

from common.webhooks.records import DELIVERED, FAILED, PENDING


class Next(enum.Enum):
    DONE = "done"  # delivered, turned off, or nothing to do: the message is consumed
    RETRY = "retry"  # comes back after `delay` seconds
    DEAD = "dead"  # every try failed: to the dead-letter queue


@dataclass(frozen=True)
class Decision:
    next: Next
    estado: str  # the delivery's state after this attempt
    delay: int = 0


def delivered(status: int | None) -> bool:
    return status is not None and 200 <= status < 300


GONE = 410


def decide(status: int | None, attempt: int, schedule: tuple[int, ...]) -> Decision:
    """After attempt number `attempt` (1 for the first) answered `status` (None: no
    answer)."""
    if delivered(status):
        return Decision(Next.DONE, DELIVERED)
    if status == GONE:
        return Decision(Next.DONE, FAILED)
    if attempt <= len(schedule):
        return Decision(Next.RETRY, PENDING, schedule[attempt - 1])
    return Decision(Next.DEAD, FAILED)
