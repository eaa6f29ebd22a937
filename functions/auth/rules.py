"""Sign-in's pure rules: what a registration and a sign-in must hold, the pool's password
policy (declared once, here: tests hold infra/template.yaml's to it), how repeated
sign-ins for one email from one client address are slowed, and how many accounts one
address may make."""

import math
import re
from dataclasses import dataclass

from common.identity.attempts import (
    FORGET_AFTER_SECONDS,
    Attempts,
    attempts_key,
    hashed_key,
    kept_attempts,
    lock_seconds,
    next_attempts,
    too_many,
)
from common.platform.errors import TooManyRequests, invalid_fields
from common.platform.validation import EMAIL, MAX_EMAIL, MAX_TEXT, normal_email

# Sign-in's names for the slowing of guesses, which the users function shares.
__all__ = [
    "FORGET_AFTER_SECONDS",
    "Attempts",
    "attempts_key",
    "kept_attempts",
    "lock_seconds",
    "next_attempts",
    "too_many",
]

# Cognito's limit for a password (an email's is common.platform.validation.MAX_EMAIL).
MAX_PASSWORD = 256


@dataclass(frozen=True)
class PasswordPolicy:
    """The user pool's password policy (infra/template.yaml's UserPool, Policies)."""

    minimum_length: int
    require_lowercase: bool
    require_uppercase: bool
    require_numbers: bool
    require_symbols: bool

    def describe(self) -> str:
        """The policy in words, for the message of a refused password."""
        kinds = [
            kind
            for kind, required in (
                ("a lowercase letter", self.require_lowercase),
                ("an uppercase letter", self.require_uppercase),
                ("a number", self.require_numbers),
                ("a symbol", self.require_symbols),
            )
            if required
        ]
        having = f", with {_joined(kinds)}" if kinds else ""
        return f"at least {self.minimum_length} characters{having}"

    def allows(self, password: str) -> bool:
        checks = (
            (self.require_lowercase, r"[a-z]"),
            (self.require_uppercase, r"[A-Z]"),
            (self.require_numbers, r"[0-9]"),
            (self.require_symbols, r"[\^$*.\[\]{}()?\"!@#%&/\\,><':;|_~`=+\- ]"),
        )
        return self.minimum_length <= len(password) <= MAX_PASSWORD and all(
            re.search(pattern, password) for required, pattern in checks if required
        )

    def as_template(self) -> dict:
        """The same policy as CloudFormation's PasswordPolicy writes it."""
        return {
            "MinimumLength": self.minimum_length,
            "RequireLowercase": self.require_lowercase,
            "RequireNumbers": self.require_numbers,
            "RequireSymbols": self.require_symbols,
            "RequireUppercase": self.require_uppercase,
        }


PASSWORD_POLICY = PasswordPolicy(
    minimum_length=12,
    require_lowercase=True,
    require_uppercase=True,
    require_numbers=True,
    require_symbols=False,
)


def _joined(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def weak_password_message(policy: PasswordPolicy = PASSWORD_POLICY) -> str:
    return f"must be {policy.describe()}"


@dataclass(frozen=True)
class Registration:
    email: str  # normal_email's: the pool's usernames are emails, compared as written
    password: str
    nombre: str | None


@dataclass(frozen=True)
class Credentials:
    email: str
    password: str


def _text(body: dict, field: str, details: list[dict]) -> str | None:
    value = body.get(field)
    if value is None:
        details.append({"field": field, "message": "is required"})
        return None
    if not isinstance(value, str) or not value.strip():
        details.append({"field": field, "message": "must be a non-blank string"})
        return None
    return value


def parse_registration(body: dict) -> Registration:
    """A new customer's account, or one 400 naming every field that is wrong. Any other
    field (a role, a userId) is ignored: an account made here is always a customer's."""
    details: list[dict] = []
    email, password = _text(body, "email", details), _text(body, "password", details)
    email = normal_email(email) if email is not None else None
    if email is not None and (len(email) > MAX_EMAIL or not EMAIL.fullmatch(email)):
        details.append({"field": "email", "message": "must be an email address"})
    if password is not None and not PASSWORD_POLICY.allows(password):
        details.append({"field": "password", "message": weak_password_message()})
    nombre = body.get("nombre")
    if nombre is not None and (not isinstance(nombre, str) or len(nombre) > MAX_TEXT):
        details.append({"field": "nombre", "message": f"must be a string of at most {MAX_TEXT}"})
    if details:
        raise invalid_fields(details)
    assert email is not None and password is not None  # else details
    return Registration(email, password, (nombre or "").strip() or None)


def parse_credentials(body: dict) -> Credentials:
    """An email and a password to try. Nothing about them is judged here but that they
    are there: a wrong or impossible email is answered as a wrong password is."""
    details: list[dict] = []
    email, password = _text(body, "email", details), _text(body, "password", details)
    if details:
        raise invalid_fields(details)
    assert email is not None and password is not None
    return Credentials(normal_email(email), password)


# -- Slowing guesses: common.identity.attempts (the users function counts password checks too) ----

# -- Limiting registrations -------------------------------------------------------------

# Accounts one client address may make in any REGISTRATION_WINDOW_SECONDS: a person
# makes one, a family or an office a few; a script filling the pool is stopped.
REGISTRATIONS_PER_ADDRESS = 20
REGISTRATION_WINDOW_SECONDS = 600


def registrations_key(address: str) -> str:
    """Where the accounts made from one client address are counted (its SHA-256)."""
    return hashed_key("register", address)


def next_registrations(made: tuple[float, ...], now: float) -> tuple[float, ...]:
    """When the accounts still in the window were made, with one more made `now`; or
    TooManyRequests when the window holds REGISTRATIONS_PER_ADDRESS already, to retry
    when its oldest leaves it."""
    recent = tuple(sorted(moment for moment in made if moment > now - REGISTRATION_WINDOW_SECONDS))
    if len(recent) >= REGISTRATIONS_PER_ADDRESS:
        wait = math.ceil(recent[-REGISTRATIONS_PER_ADDRESS] + REGISTRATION_WINDOW_SECONDS - now)
        raise TooManyRequests(
            "TOO_MANY_REGISTRATIONS",
            f"Too many accounts made from this address: try again in {max(1, wait)} seconds",
            retry_after_seconds=max(1, wait),
        )
    return (*recent, now)


def without(made: tuple[float, ...], moment: float) -> tuple[float, ...]:
    """The registrations with the one made at `moment` taken back (it made no account)."""
    kept = list(made)
    if moment in kept:
        kept.remove(moment)
    return tuple(kept)
