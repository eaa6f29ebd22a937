"""The platform's two keys: the one bearer tokens are signed with (HS256) and the one list
page tokens are signed with, each as a ring of versions so that it can be rotated.

Locally each is one fixed key from the environment (JWT_SECRET, which the local stack
sets to a key of its own: there is no default; PAGE_TOKEN_KEY, with a development
default). On AWS each is a Secrets Manager secret the template generates and rotates
(JWT_SECRET_ID, PAGE_TOKEN_KEY_ID), so no key is in an environment variable.

Rotation without an outage (docs/operations.md#rotating-a-key):
- Every token names the version it was signed with (`kid`). Verification accepts the
  secret's AWSCURRENT and AWSPREVIOUS versions, so tokens issued before a rotation keep
  working until they expire.
- A container reads the secret at most every REFRESH_SECONDS. A version that has just
  become current is not signed with until PROPAGATION_SECONDS after it was created: by
  then every container has read it, so no container refuses a token another one issued.
  Until then signing goes on with the previous version, which every container accepts.
- A token naming a version this container has not read makes it read the secret again at
  once (at most once every MIN_REREAD_SECONDS, so junk cannot turn into a read per request).
"""

import contextlib
import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from common.platform.env import MIN_JWT_SECRET_BYTES, ConfigError
from common.platform.settings import Cloud, Pages, Tokens

REFRESH_SECONDS = 300
PROPAGATION_SECONDS = REFRESH_SECONDS + 60
MIN_REREAD_SECONDS = 5
CURRENT, PREVIOUS = "AWSCURRENT", "AWSPREVIOUS"


@dataclass(frozen=True)
class Key:
    """One version of a key: what tokens name it by, and its bytes."""

    kid: str  # the version's name, carried by every token signed with it
    secret: bytes = field(repr=False)


@dataclass(frozen=True)
class _Version:
    """A key version and when it was created."""

    key: Key
    created: float  # seconds since the epoch


class KeyRing:
    """The keys a token may be signed with: `signing()` the one to sign with now,
    `verifying(kid)` the ones a token naming `kid` may be checked against."""

    def signing(self) -> Key:
        raise NotImplementedError

    def verifying(self, kid: str | None) -> list[Key]:
        raise NotImplementedError


def fingerprint(secret: bytes) -> str:
    """A fixed key's name: tells keys apart without giving anything of them away."""
    return "k-" + hashlib.sha256(b"kid:" + secret).hexdigest()[:12]


class FixedRing(KeyRing):
    """One key that never changes (the local stack's, from the environment)."""

    def __init__(self, secret: bytes):
        self._key = Key(fingerprint(secret), secret)

    def signing(self) -> Key:
        return self._key

    def verifying(self, kid: str | None) -> list[Key]:
        return [self._key] if kid in (None, self._key.kid) else []


class SecretRing(KeyRing):
    """A Secrets Manager secret's current and previous versions, read through the
    process's client and kept REFRESH_SECONDS (see the module's text).

    `client` builds the Secrets Manager client, called at the first read: a function
    whose requests seldom need the key (the page-token key of an API function, read for
    a list's pages only) does not build one in every cold start."""

    def __init__(
        self, secret_id: str, client: Callable[[], Any], clock: Callable[[], float] = time.time
    ):
        self._id, self._client, self._clock = secret_id, client, clock
        self._secrets: Any = None
        self._lock = threading.Lock()
        self._current: _Version | None = None
        self._previous: _Version | None = None
        self._read_at = float("-inf")

    def signing(self) -> Key:
        current, previous = self._versions()
        if previous is not None and self._clock() - current.created < PROPAGATION_SECONDS:
            return previous.key
        return current.key

    def verifying(self, kid: str | None) -> list[Key]:
        versions = [v for v in self._versions() if v is not None]
        if (
            kid is not None
            and all(v.key.kid != kid for v in versions)
            and self._clock() - self._read_at >= MIN_REREAD_SECONDS
        ):
            versions = [v for v in self._versions(force=True) if v is not None]
        return [v.key for v in versions if kid is None or v.key.kid == kid]

    def _versions(self, force: bool = False) -> tuple[_Version, _Version | None]:
        with self._lock:
            if force or self._current is None or self._clock() - self._read_at >= REFRESH_SECONDS:
                self._current = self._read(CURRENT)
                self._previous = self._read(PREVIOUS)
                self._read_at = self._clock()
            assert self._current is not None  # _read(CURRENT) returns a version or raises
            return self._current, self._previous

    def _read(self, stage: str) -> _Version | None:
        from botocore.exceptions import ClientError

        if self._secrets is None:  # under self._lock (_versions)
            self._secrets = self._client()
        try:
            found = self._secrets.get_secret_value(SecretId=self._id, VersionStage=stage)
        except ClientError as exc:
            if stage == PREVIOUS and exc.response["Error"]["Code"] == "ResourceNotFoundException":
                return None  # never rotated yet
            raise
        value = found.get("SecretString")
        secret = value.encode("utf-8") if value is not None else bytes(found["SecretBinary"])
        if len(secret) < MIN_JWT_SECRET_BYTES:
            raise ConfigError(
                f"the secret {self._id} ({stage}) holds fewer than {MIN_JWT_SECRET_BYTES} bytes"
            )
        created = found.get("CreatedDate")
        return _Version(
            Key(found["VersionId"], secret),
            created.timestamp() if isinstance(created, datetime) else 0.0,
        )


def jwt_keys(tokens: Tokens, cloud: Cloud) -> KeyRing:
    """Raises ConfigError when neither variable names a key: there is no default one."""
    if tokens.jwt_secret_id is None and tokens.jwt_secret is None:
        raise ConfigError(
            "JWT_SECRET or JWT_SECRET_ID: one must give the key bearer tokens are signed "
            "with (none is built in; `make run` sets JWT_SECRET: docs/configuration.md)"
        )
    return _ring(cloud, tokens.jwt_secret_id, tokens.jwt_secret)


def page_token_keys(pages: Pages, cloud: Cloud) -> KeyRing:
    return _ring(cloud, pages.page_token_key_id, pages.page_token_key)


def _ring(cloud: Cloud, secret_id: str | None, literal: bytes | None) -> KeyRing:
    if secret_id is None:
        assert literal is not None  # jwt_keys checks; the page key has a default
        return FixedRing(literal)
    from common.platform import aws

    # Built when first read, as the function that built the ring (a view runs as its own
    # function, and so does init; the tests run several in one process).
    owner = aws.acting_function_or_none()

    def client() -> Any:
        with aws.acting_as(owner) if owner else contextlib.nullcontext():
            return aws.secretsmanager(cloud)

    return SecretRing(secret_id, client)
