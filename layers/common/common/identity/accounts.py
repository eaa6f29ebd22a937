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
AdminUserGlobalSignOut on the pool (common.identity.account_end, for the users and erasure
functions).
"""

import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from common.platform import aws
from common.platform.settings import REVOCATION_SECONDS, Cloud

# How long the pool's answer about an account is kept (both ways), unless told otherwise
# (ACCOUNT_CHECK_SECONDS: tests that wait for a revocation keep it short).
CHECK_SECONDS = 30.0
# Accounts whose answers one environment keeps (the least recently asked go first).
KEPT_ACCOUNTS = 10_000
_GONE = "UserNotFoundException"
# The platform's own record of the accounts whose sessions it ended (revoke): read by the
# authorizer before the pool, so a pool that throttles or fails revives none of them.
REVOCATIONS = "RevocationsTable"
# A record outlives every token it revokes (60 minutes) and the account (deleted next).
REVOCATION_KEPT_SECONDS = 7 * 24 * 3600


class Revocations:
    """The accounts whose sessions the platform ended, one item each (RevocationsTable:
    the account's username in the pool, which holds nothing of the person)."""

    def __init__(
        self, client: Callable[[], Any], table: str, clock: Callable[[], float] = time.time
    ):
        self._client, self._table, self._clock = client, table, clock

    @classmethod
    def for_function(cls, cloud: Cloud) -> "Revocations":
        return cls(functools.partial(aws.dynamodb, cloud), cloud.table_name(REVOCATIONS))

    def record(self, username: str) -> None:
        now = int(self._clock())
        self._client().put_item(
            TableName=self._table,
            Item={
                "cuenta": {"S": username},
                "revocadaEn": {"N": str(now)},
                "expiresAt": {"N": str(now + REVOCATION_KEPT_SECONDS)},
            },
        )

    def revoked(self, username: str) -> bool:
        answer = self._client().get_item(
            TableName=self._table, Key={"cuenta": {"S": username}}, ConsistentRead=True
        )
        return "Item" in answer


@dataclass(frozen=True)
class _Answer:
    active: bool
    until: float  # monotonic
    asked: float  # monotonic: when it was answered


class AccountCheck:
    """Whether each account may still call: the platform's record of revocations first,
    then the pool (an account disabled or deleted there), each answer kept CHECK_SECONDS;
    `cognito()` gives the cognito-idp client to ask with (built at the first question).

    Fails closed: when neither can be asked, the last answer stands while it is younger
    than the 60 s the platform promises, and after that the token is refused."""

    def __init__(
        self,
        cognito: Callable[[], Any],
        pool_id: str,
        clock: Callable[[], float] = time.monotonic,
        keep_seconds: float = CHECK_SECONDS,
        revocations: Revocations | None = None,
    ):
        self._cognito, self._pool_id, self._clock = cognito, pool_id, clock
        self._keep_seconds = keep_seconds
        self._revocations = revocations
        self._lock = threading.Lock()
        self._known: OrderedDict[str, _Answer] = OrderedDict()

    def active(self, username: str) -> bool:
        """Whether the account may call: False once it is revoked, disabled or deleted,
        and False when nothing could be asked and the last answer is older than the
        promise (or there is none)."""
        now = self._clock()
        with self._lock:
            known = self._known.get(username)
        if known is not None and now < known.until:
            return known.active
        active = self._ask(username)
        if active is None:
            return known is not None and now < known.asked + REVOCATION_SECONDS and known.active
        with self._lock:
            self._known[username] = _Answer(active, now + self._keep_seconds, now)
            self._known.move_to_end(username)
            while len(self._known) > KEPT_ACCOUNTS:
                self._known.popitem(last=False)
        return active

    def _ask(self, username: str) -> bool | None:
        """The record's word, then the pool's; None when neither could say."""
        recorded: bool | None = None
        if self._revocations is not None:
            try:
                recorded = not self._revocations.revoked(username)
            except (ClientError, BotoCoreError):
                recorded = None
            if recorded is False:
                return False
        try:
            user = self._cognito().admin_get_user(UserPoolId=self._pool_id, Username=username)
            return bool(user.get("Enabled", True))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == _GONE:
                return False
            return recorded
        except BotoCoreError:
            return recorded

    def rehearse(self) -> None:
        """At init: the client the first question needs, built (no question asked)."""
        self._cognito()


def revoke(
    cognito: Any, pool_id: str, username: str, revocations: Revocations | None = None
) -> None:
    """End every session of the account: recorded as revoked (the authorizer refuses its
    tokens within CHECK_SECONDS, whatever the pool answers then), disabled (it cannot sign
    in), then signed out everywhere (its refresh tokens are revoked). `username`: as the
    pool knows it."""
    if revocations is not None:
        revocations.record(username)
    cognito.admin_disable_user(UserPoolId=pool_id, Username=username)
    cognito.admin_user_global_sign_out(UserPoolId=pool_id, Username=username)
