"""Whether a user pool's account may still call the API, and how its tokens are revoked
(docs/identity.md#revoking-a-token).

A pool's access token is signed for 60 minutes; the account behind it may be disabled or
deleted meanwhile (by an administrator in the pool, or by the platform: `revoke`). The
authorizer asks the pool about the account of each token it takes (AdminGetUser), and
keeps the answer CHECK_SECONDS: a token of an account disabled or deleted is refused (401)
within that time. API Gateway keeps no authorizer result (the template's
`ReauthorizeEvery: 0`), so CHECK_SECONDS is all the delay there is, well under the 60 s
the platform promises.

`revoke` is the one call that ends an account's sessions: it disables the account (its
access tokens are refused within CHECK_SECONDS, it cannot sign in again) and signs it
out everywhere (its refresh tokens stop working). Whatever deletes an account later
(erasure) calls it first; the caller's role needs cognito-idp:AdminDisableUser and
AdminUserGlobalSignOut on the pool (common.account_end, for the users and erasure
functions).
"""

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

# How long the pool's answer about an account is kept (both ways), unless told otherwise
# (ACCOUNT_CHECK_SECONDS: tests that wait for a revocation keep it short).
CHECK_SECONDS = 30.0
# Accounts whose answers one environment keeps (the least recently asked go first).
KEPT_ACCOUNTS = 10_000
_GONE = "UserNotFoundException"


@dataclass(frozen=True)
class _Answer:
    active: bool
    until: float  # monotonic


class AccountCheck:
    """The pool's answers about its accounts, kept CHECK_SECONDS each; `cognito()` gives
    the cognito-idp client to ask with (built at the first question)."""

    def __init__(
        self,
        cognito: Callable[[], Any],
        pool_id: str,
        clock: Callable[[], float] = time.monotonic,
        keep_seconds: float = CHECK_SECONDS,
    ):
        self._cognito, self._pool_id, self._clock = cognito, pool_id, clock
        self._keep_seconds = keep_seconds
        self._lock = threading.Lock()
        self._known: OrderedDict[str, _Answer] = OrderedDict()

    def active(self, username: str) -> bool | None:
        """Whether the account may call: False once it is disabled or deleted; None when
        the pool could not be asked and nothing is known of it (its last answer, however
        old, is used before that)."""
        now = self._clock()
        with self._lock:
            known = self._known.get(username)
        if known is not None and now < known.until:
            return known.active
        try:
            user = self._cognito().admin_get_user(UserPoolId=self._pool_id, Username=username)
            active = bool(user.get("Enabled", True))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != _GONE:
                return known.active if known is not None else None
            active = False
        except BotoCoreError:
            return known.active if known is not None else None
        with self._lock:
            self._known[username] = _Answer(active, now + self._keep_seconds)
            self._known.move_to_end(username)
            while len(self._known) > KEPT_ACCOUNTS:
                self._known.popitem(last=False)
        return active

    def rehearse(self) -> None:
        """At init: the client the first question needs, built (no question asked)."""
        self._cognito()


def revoke(cognito: Any, pool_id: str, username: str) -> None:
    """End every session of the account: disabled (its access tokens are refused within
    CHECK_SECONDS, and it cannot sign in), then signed out everywhere (its refresh tokens
    are revoked). `username`: as the pool knows it (the email the platform made it with)."""
    cognito.admin_disable_user(UserPoolId=pool_id, Username=username)
    cognito.admin_user_global_sign_out(UserPoolId=pool_id, Username=username)
