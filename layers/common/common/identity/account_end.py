"""An account's end in the user pool (docs/identity.md#revoking-a-token): its sessions
(common.identity.accounts.revoke), then the account itself. The users function ends a person's
sessions and reads and corrects their account (users.pool, built on this); the erasure
function ends an erased person's account: both through this.

An account gone already has nothing to end; anything else the pool answers (unreachable,
throttled, failing) is 503 USER_POOL_UNAVAILABLE with Retry-After, never a 500.
"""

import functools
from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from common.identity.accounts import Revocations, revoke
from common.platform import aws
from common.platform.errors import Unavailable
from common.platform.settings import Cloud, Pool

RETRY_AFTER_SECONDS = 5
GONE = "UserNotFoundException"


def unavailable(why: str) -> Unavailable:
    return Unavailable(
        "USER_POOL_UNAVAILABLE",
        f"The user pool cannot be asked at the moment ({why}): try again in a few seconds",
        retry_after_seconds=RETRY_AFTER_SECONDS,
    )


def error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


class AccountEnd:
    """An account's end, through the pool's administrator API: its sessions (`revoke`),
    then the account itself (`delete`); an account gone already has nothing to end.
    Anything else the pool answers is 503 USER_POOL_UNAVAILABLE. `client()` gives the
    cognito-idp client (common.platform.aws.cognito)."""

    def __init__(
        self, client: Callable[[], Any], pool_id: str, revocations: Revocations | None = None
    ):
        self._cognito, self._pool_id, self._revocations = client, pool_id, revocations

    def _failing(self, exc: ClientError) -> Unavailable:
        return unavailable(f"the user pool answered {error_code(exc) or 'an error'}")

    def revoke(self, username: str) -> None:
        """End every session of the account (`revoke`): its tokens are refused within
        30 s, it cannot sign in. Gone already: nothing to end."""
        try:
            revoke(self._cognito(), self._pool_id, username, self._revocations)
        except ClientError as exc:
            if error_code(exc) != GONE:
                raise self._failing(exc) from None
        except BotoCoreError as exc:
            raise unavailable(type(exc).__name__) from None

    def delete(self, username: str) -> None:
        """The account leaves the pool; its email may register again (a new account)."""
        try:
            self._cognito().admin_delete_user(UserPoolId=self._pool_id, Username=username)
        except ClientError as exc:
            if error_code(exc) != GONE:
                raise self._failing(exc) from None
        except BotoCoreError as exc:
            raise unavailable(type(exc).__name__) from None


class NoPool:
    """Where no user pool is configured (a stack that takes another provider's tokens):
    no one has an account here, none to end."""

    def revoke(self, username: str) -> None:
        return None

    def delete(self, username: str) -> None:
        return None


def ends_for(cloud: Cloud, pool: Pool) -> AccountEnd | NoPool:
    """The pool's accounts' end, or NoPool where the settings name no pool."""
    if pool.user_pool_id is None:
        return NoPool()
    return AccountEnd(
        functools.partial(aws.cognito, cloud),
        pool.user_pool_id,
        Revocations.for_function(cloud),
    )
