"""Sign-in's pure rules: what a registration and a sign-in must hold, the pool's password
policy (declared once, here: tests hold infra/template.yaml's to it), how repeated
sign-ins for one email from one client address are slowed, and how many accounts one
address may make."""

import hashlib
import json
import math
import re
from dataclasses import dataclass

from common.errors import TooManyRequests, invalid_fields
from common.validation import EMAIL, MAX_TEXT, normal_email

# Cognito's limits: an email attribute of at most 254 characters (RFC 5321's path), a
# password of at most 256.
MAX_EMAIL = 254
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


# -- Slowing guesses ---------------------------------------------------------------------

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


def _key(*parts: str) -> str:
    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()


def attempts_key(email: str, address: str) -> str:
    """Where sign-ins for an email from one client address are counted: someone guessing
    from elsewhere never slows the owner. A SHA-256, so the table holds neither."""
    return _key("sign-in", normal_email(email), address)


# -- Limiting registrations -------------------------------------------------------------

# Accounts one client address may make in any REGISTRATION_WINDOW_SECONDS: a person
# makes one, a family or an office a few; a script filling the pool is stopped.
REGISTRATIONS_PER_ADDRESS = 20
REGISTRATION_WINDOW_SECONDS = 600


def registrations_key(address: str) -> str:
    """Where the accounts made from one client address are counted (its SHA-256)."""
    return _key("register", address)


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
