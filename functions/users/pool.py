"""A person's account in the user pool (docs/identity.md): read, corrected, its password
checked, its sessions ended and the account deleted, through the pool's administrator
API (this function's role alone may).

What the pool answers about the request (a taken email, an email it refuses, a wrong
password) is the client's 4xx; anything else (the pool unreachable, throttled, failing)
is 503 with Retry-After, never a 500.
"""

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol

from botocore.exceptions import BotoCoreError, ClientError

from common.identity.account_end import GONE, AccountEnd, error_code, unavailable
from common.identity.accounts import Revocations
from common.identity.attempts import (
    FIRST_LOCK_SECONDS,
    Attempts,
    attempts_key,
    next_attempts,
    password_route_key,
    pool_locked,
    too_many,
)
from common.identity.callers import CUSTOMER
from common.platform.clock import to_iso
from common.platform.errors import Conflict, invalid_field
from users.rules import ACTIVE, DISABLED, Account

# The pool's answers about a password itself: each is a wrong password.
_WRONG = {"NotAuthorizedException", "UserNotFoundException", "PasswordResetRequiredException"}


def _attributes(user: dict) -> dict[str, str]:
    listed = user.get("UserAttributes") or user.get("Attributes") or []
    return {attribute["Name"]: attribute["Value"] for attribute in listed}


def _created(user: dict) -> str:
    made = user.get("UserCreateDate")
    if not isinstance(made, datetime):
        return ""
    return to_iso(made.astimezone(UTC).replace(tzinfo=None) if made.tzinfo else made)


class Accounts(AccountEnd):
    """The pool's accounts (their end, revoke and delete: common.identity.account_end); `client()`
    gives the cognito-idp client (common.platform.aws.cognito). `client_id`: the app client the
    API signs in through (a password is checked as a sign-in with it)."""

    def __init__(
        self,
        client: Callable[[], Any],
        pool_id: str,
        client_id: str | None,
        revocations: Revocations | None = None,
    ):
        super().__init__(client, pool_id, revocations)
        self._client_id = client_id

    def _call(self, operation: str, **parameters: Any) -> dict:
        try:
            return getattr(self._cognito(), operation)(UserPoolId=self._pool_id, **parameters)
        except ClientError as exc:
            if error_code(exc) in ("AliasExistsException", "UsernameExistsException"):
                raise Conflict(
                    "EMAIL_TAKEN", "An account with this email exists", details=[]
                ) from None
            if error_code(exc) == "InvalidParameterException":
                raise invalid_field("email", "is refused by the user pool") from None
            raise
        except BotoCoreError as exc:
            raise unavailable(type(exc).__name__) from None

    def get(self, username: str, user_id: int) -> Account | None:
        """The account of this username (the claim's of `user_id`), or None: gone."""
        try:
            user = self._call("admin_get_user", Username=username)
        except ClientError as exc:
            if error_code(exc) == GONE:
                return None
            raise self._failing(exc) from None
        attributes = _attributes(user)
        return Account(
            user_id=user_id,
            email=attributes.get("email", ""),
            nombre=attributes.get("name"),
            rol=CUSTOMER,  # an account found by its userId: a customer's (operators have none)
            estado=ACTIVE if user.get("Enabled", True) else DISABLED,
            creado_en=_created(user),
        )

    def _update(self, username: str, name: str, value: str) -> None:
        try:
            self._call(
                "admin_update_user_attributes",
                Username=username,
                UserAttributes=[{"Name": name, "Value": value}],
            )
        except ClientError as exc:
            raise self._failing(exc) from None

    def rename(self, username: str, nombre: str) -> None:
        self._update(username, "name", nombre)

    def change_email(self, username: str, email: str) -> None:
        """Sign-in is by the new email from now on (the pool's usernames are generated:
        the email is what signs in), the old one no longer. Conflict EMAIL_TAKEN."""
        self._update(username, "email", email)

    def password_is(self, email: str, password: str) -> bool:
        """Whether `password` is the account's: a sign-in with it (the administrator's
        flow, as the API signs in), whose tokens are not kept."""
        if self._client_id is None:
            raise unavailable("this stack has no app client to sign in through")
        try:
            self._cognito().admin_initiate_auth(
                UserPoolId=self._pool_id,
                ClientId=self._client_id,
                AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                AuthParameters={"USERNAME": email, "PASSWORD": password},
            )
        except ClientError as exc:
            message = str(exc.response.get("Error", {}).get("Message") or "")
            if pool_locked(error_code(exc), message):
                raise too_many(FIRST_LOCK_SECONDS) from None
            if error_code(exc) in _WRONG:
                return False
            raise self._failing(exc) from None
        except BotoCoreError as exc:
            raise unavailable(type(exc).__name__) from None
        return True  # a token, or a challenge only the right password gets


class AttemptLog(Protocol):
    """Password tries, counted (common.identity.attempts_repository.DynamoAttempts)."""

    def claim(self, key: str, step: Callable[[Attempts], Attempts]) -> None: ...
    def forget(self, key: str) -> None: ...


class PasswordCheck(Protocol):
    def password_is(self, email: str, password: str) -> bool: ...


class CountedPasswords:
    """A password checked as a sign-in is, and counted as one: against the email from the
    client's address, in the sign-in's own count (a guesser holding a stolen token gets
    no more tries here than at the sign-in route), 429 TOO_MANY_ATTEMPTS past it."""

    def __init__(
        self,
        accounts: PasswordCheck,
        attempts: AttemptLog,
        clock: Callable[[], float] = time.time,
    ):
        self._accounts, self._attempts, self._clock = accounts, attempts, clock

    def check(self, email: str, password: str, address: str, user_id: int) -> bool:
        step = lambda current: next_attempts(current, self._clock())  # noqa: E731
        # Every try, right or wrong, and never forgotten by a success: a caller holding
        # the account's token and password gets no more pool calls, mails to other
        # addresses or answers about who has an email than a guesser of sign-ins does.
        self._attempts.claim(password_route_key(user_id, address), step)
        key = attempts_key(email, address)
        self._attempts.claim(key, step)
        if not self._accounts.password_is(email, password):
            return False
        self._attempts.forget(key)  # sign-in's own count: a right password starts it again
        return True
