"""Sign-in's use cases: a customer's account, and an access token for an email and its
password. The identity provider (a Cognito user pool: auth.pool), the counts of attempts
and of registrations (auth.repository), the users counter and the userIds' claims
(common.identity.user_ids) are passed in, each behind a Protocol or a callable."""

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from auth.rules import (
    Attempts,
    Credentials,
    Registration,
    attempts_key,
    next_attempts,
    registrations_key,
)
from common.identity.callers import CUSTOMER
from common.platform.errors import Conflict, Unauthenticated, Unavailable


class WrongCredentials(Exception):
    """The provider refused the email and password: which of the two was wrong is never
    told (a wrong password and an unknown email are one answer)."""


class IdentityProvider(Protocol):
    def create_customer(self, registration: Registration, user_id: int) -> str:
        """The account, signed in with its password from now on (its username in the
        pool); Conflict EMAIL_TAKEN, Invalid for what the provider refuses, Unavailable
        when it cannot be reached."""

    def remove_customer(self, email: str) -> None:
        """The account just made, undone (best effort)."""

    def sign_in(self, credentials: Credentials) -> str:
        """The access token; WrongCredentials, or Unavailable."""


class AccountIds(Protocol):
    """The userIds' claims (common.identity.user_ids.UserIds)."""

    def new_account(self, next_id: Callable[[], int]) -> int:
        """An id no one has used, from `next_id`, claimed for an account being made."""

    def account_created(
        self, user_id: int, username: str | None = None, email: str | None = None
    ) -> None: ...
    def account_not_created(self, user_id: int) -> None: ...


class AttemptLog(Protocol):
    def claim(self, key: str, step: Callable[[Attempts], Attempts]) -> None:
        """Replace key's attempts with step(current) atomically (step may raise)."""

    def forget(self, key: str) -> None:
        """A success: the count starts again."""


class RegistrationLog(Protocol):
    def add(self, key: str) -> float:
        """One more account made from key's address, now (returned); TooManyRequests
        beyond the limit (auth.rules.next_registrations)."""

    def take_back(self, key: str, moment: float) -> None:
        """The registration made at `moment` made no account after all."""


@dataclass(frozen=True)
class Registrar:
    """What making a customer's account takes: the pool, the userIds' claims and the
    counter they come from, and the count of accounts made from each address."""

    provider: IdentityProvider
    ids: AccountIds
    next_user_id: Callable[[], int]
    registrations: RegistrationLog


@dataclass(frozen=True)
class Account:
    email: str
    user_id: int
    rol: str = CUSTOMER


INVALID_CREDENTIALS = "INVALID_CREDENTIALS"


def register(registration: Registration, address: str, registrar: Registrar) -> Account:
    """A customer's account with a userId no order, shipment or account has carried,
    claimed first (common.identity.user_ids): an id is never given twice, even to an account whose
    creation then failed. Counted against the client's address first (429 beyond its
    limit); a registration that makes no account gives its place back."""
    key = registrations_key(address)
    made_at = registrar.registrations.add(key)
    try:
        return _made(registration, registrar)
    except Conflict:
        # A taken email counts as an account made: else one address could test emails
        # for existence without limit, and burn a userId each try.
        raise
    except Exception:
        with contextlib.suppress(Exception):  # this failure is the answer, not that one's
            registrar.registrations.take_back(key, made_at)
        raise


def _made(registration: Registration, registrar: Registrar) -> Account:
    ids = registrar.ids
    user_id = ids.new_account(registrar.next_user_id)
    try:
        username = registrar.provider.create_customer(registration, user_id)
    except Exception:
        # The id stays claimed and unused; this failure is the answer, not that one's.
        with contextlib.suppress(Exception):
            ids.account_not_created(user_id)
        raise
    # The account exists: orders for its id go through from now on. Never suppressed: a
    # claim that does not name its account cannot lead an erasure to it. Should it fail,
    # the account is undone and the registration can be sent again.
    try:
        ids.account_created(user_id, username, registration.email)
    except Exception:
        with contextlib.suppress(Exception):
            registrar.provider.remove_customer(registration.email)
        with contextlib.suppress(Exception):
            ids.account_not_created(user_id)
        raise Unavailable(
            "SIGN_IN_UNAVAILABLE",
            "The account could not be recorded: nothing was made; register again",
            retry_after_seconds=5,
        ) from None
    return Account(registration.email, user_id)


def sign_in(
    credentials: Credentials,
    address: str,
    provider: IdentityProvider,
    attempts: AttemptLog,
    clock: Callable[[], float] = time.time,
) -> str:
    """The access token for these credentials. Every try counts against the email from
    the client's address, whether or not the email exists, and is slowed the same way
    (auth.rules.next_attempts); every refusal is the same 401. Tries from elsewhere never
    slow this address's."""
    key = attempts_key(credentials.email, address)
    attempts.claim(key, lambda current: next_attempts(current, clock()))
    try:
        token = provider.sign_in(credentials)
    except WrongCredentials:
        raise Unauthenticated(
            INVALID_CREDENTIALS, "The email or the password is wrong", details=[]
        ) from None
    attempts.forget(key)
    return token
