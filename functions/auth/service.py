"""Sign-in's use cases: a customer's account, and an access token for an email and its
password. The identity provider (a Cognito user pool: auth.pool), the count of attempts
(auth.repository) and the user ids are passed in, each behind a Protocol."""

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from auth.rules import Attempts, Credentials, Registration, email_key, next_attempts
from common.callers import CUSTOMER
from common.errors import Unauthenticated


class WrongCredentials(Exception):
    """The provider refused the email and password: which of the two was wrong is never
    told (a wrong password and an unknown email are one answer)."""


class IdentityProvider(Protocol):
    def create_customer(self, registration: Registration, user_id: int) -> None:
        """The account, signed in with its password from now on; Conflict EMAIL_TAKEN,
        Invalid for what the provider refuses, Unavailable when it cannot be reached."""

    def sign_in(self, credentials: Credentials) -> str:
        """The access token; WrongCredentials, or Unavailable."""


class AttemptLog(Protocol):
    def claim(self, key: str, step: Callable[[Attempts], Attempts]) -> None:
        """Replace key's attempts with step(current) atomically (step may raise)."""

    def forget(self, key: str) -> None:
        """A success: the count starts again."""


@dataclass(frozen=True)
class Account:
    email: str
    user_id: int
    rol: str = CUSTOMER


INVALID_CREDENTIALS = "INVALID_CREDENTIALS"


def register(
    registration: Registration, provider: IdentityProvider, next_user_id: Callable[[], int]
) -> Account:
    """A customer's account with a userId of its own, reserved first: an id is never
    given twice, even to an account whose creation then failed."""
    user_id = next_user_id()
    provider.create_customer(registration, user_id)
    return Account(registration.email, user_id)


def sign_in(
    credentials: Credentials,
    provider: IdentityProvider,
    attempts: AttemptLog,
    clock: Callable[[], float] = time.time,
) -> str:
    """The access token for these credentials. Every try counts against the email,
    whether or not it exists, and is slowed the same way (auth.rules.next_attempts);
    every refusal is the same 401."""
    key = email_key(credentials.email)
    attempts.claim(key, lambda current: next_attempts(current, clock()))
    try:
        token = provider.sign_in(credentials)
    except WrongCredentials:
        raise Unauthenticated(
            INVALID_CREDENTIALS, "The email or the password is wrong", details=[]
        ) from None
    attempts.forget(key)
    return token
