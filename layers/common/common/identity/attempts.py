"""Slowing password guesses (docs/identity.md): every try of a password (signing in, and
the users function's checks before an email change or an erasure) is counted against
the email from the client's address, and past a few each waits longer. Tries from
another address are counted apart, so someone guessing elsewhere never locks the owner
out; counts are kept by a SHA-256 (common.identity.attempts_repository), never the email."""

import hashlib
import json
import math
from dataclasses import dataclass

from common.platform.errors import TooManyRequests
from common.platform.validation import normal_email

# Sign-ins for one email from one client address that go through before each further
# one waits: a user who mistypes is never slowed, a guesser gets FREE_ATTEMPTS tries, then
# one try per lock, each lock twice the last (30 s, 60 s, ...), at most 15 minutes.
FREE_ATTEMPTS = 5
FIRST_LOCK_SECONDS = 30
MAX_LOCK_SECONDS = 15 * 60
# A count nobody added to for this long is forgotten: compared with the clock when it is
# read (DynamoDB's TTL deletes the item too, but up to days late).
FORGET_AFTER_SECONDS = 3600


@dataclass(frozen=True)
class Attempts:
    """Sign-ins tried for one email from one address since its last success: how many, and
    until when the next one must wait (epoch seconds; None: it need not)."""

    count: int = 0
    locked_until: float | None = None

    def expires_at(self, now: float) -> int:
        return math.ceil(max(now, self.locked_until or now) + FORGET_AFTER_SECONDS)


def kept_attempts(stored: Attempts, expires_at: float, now: float) -> Attempts:
    """The attempts as stored, or none once they are forgotten (past `expires_at`)."""
    return stored if now < expires_at else Attempts()


def lock_seconds(count: int) -> int:
    """How long the sign-in after the `count`th must wait (0: not at all)."""
    if count < FREE_ATTEMPTS:
        return 0
    return min(FIRST_LOCK_SECONDS * 2 ** min(count - FREE_ATTEMPTS, 16), MAX_LOCK_SECONDS)


def next_attempts(current: Attempts, now: float) -> Attempts:
    """The attempts once one more is let through, or TooManyRequests while locked. The lock
    is set by the attempt that earns it, before it reaches the pool: however many try at
    once, none gets past a lock it did not see."""
    if current.locked_until is not None and now < current.locked_until:
        raise too_many(math.ceil(current.locked_until - now))
    count = current.count + 1
    wait = lock_seconds(count)
    return Attempts(count, now + wait if wait else None)


def too_many(retry_after_seconds: int) -> TooManyRequests:
    return TooManyRequests(
        "TOO_MANY_ATTEMPTS",
        f"Too many sign-ins for this email: try again in {retry_after_seconds} seconds",
        retry_after_seconds=max(1, retry_after_seconds),
    )


# Cognito's own lockout (after repeated failures for one account, whoever fails) answers
# NotAuthorizedException with this message: a wait, not a wrong password.
POOL_LOCKOUT = "Password attempts exceeded"


def pool_locked(code: str, message: str) -> bool:
    """Whether the pool's refusal is its own lockout of the account."""
    return code == "NotAuthorizedException" and POOL_LOCKOUT.lower() in message.lower()


# Requests one caller may make of the personal data routes in a window: a person and an
# operator at a console make a few a minute, a client's script a few a second; one is
# stopped at 5 a second, before it buries the record of requests (it wrote 1,000 a
# second) or spends a good part of the user pool's account-wide quota (AdminGetUser,
# 120 a second).
CALLER_REQUESTS = 300
CALLER_WINDOW_SECONDS = 60


def caller_window(sub: str, now: float) -> tuple[str, int]:
    """Where one caller's requests of the window holding `now` are counted (a SHA-256 of
    its subject and the window), and when the window ends (epoch seconds)."""
    window = int(now // CALLER_WINDOW_SECONDS)
    return hashed_key("caller", sub, str(window)), (window + 1) * CALLER_WINDOW_SECONDS


def too_many_requests(retry_after_seconds: int) -> TooManyRequests:
    return TooManyRequests(
        "TOO_MANY_REQUESTS",
        f"Too many requests about personal data from this caller: try again in "
        f"{retry_after_seconds} seconds",
        retry_after_seconds=max(1, retry_after_seconds),
    )


def hashed_key(*parts: str) -> str:
    """A SHA-256 of what is counted: the table holds neither an email nor an address."""
    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()


def password_route_key(user_id: int, address: str) -> str:
    """Where the password checks of the users routes (an email change, an erasure) for
    one account from one client address are counted, right or wrong."""
    return hashed_key("password-route", str(user_id), address)


def attempts_key(email: str, address: str) -> str:
    """Where sign-ins for an email from one client address are counted: someone guessing
    from elsewhere never slows the owner. A SHA-256, so the table holds neither."""
    return hashed_key("sign-in", normal_email(email), address)
