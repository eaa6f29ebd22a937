"""Typed, checked reads of the environment: what every slice of the settings
(common.platform.settings) reads its variables with.

A value that cannot work is a ConfigError whose str() is one line naming the variable and
what it accepts; stop_process ends a process that cannot start with that line.
"""

import math
import re
import sys
from collections.abc import Mapping
from typing import NoReturn, TypeVar, overload
from urllib.parse import urlsplit

from common.platform.ids import ascii_digits

MIN_JWT_SECRET_BYTES = 32
# SQS's longest visibility timeout: the most a retry of a webhook's delivery can wait.
MAX_VISIBILITY_SECONDS = 43200
# A Secrets Manager secret's name or ARN.
_SECRET_ID = re.compile(r"[A-Za-z0-9/_+=.@:-]{1,2048}")
# A Lambda function name, name:alias, or ARN.
_FUNCTION = re.compile(r"[A-Za-z0-9_:.$-]{1,170}")
# Values never echoed in an error line: it may end up in a log.
_SECRETS = {"JWT_SECRET", "PAGE_TOKEN_KEY"}


class ConfigError(ValueError):
    """A variable holds a value the platform cannot run with; str() is the line to print."""


N = TypeVar("N", int, float)


class Env:
    """Typed reads of one environment snapshot; an empty value counts as unset."""

    def __init__(self, env: Mapping[str, str]):
        self.env = env

    # A default that is a str makes the value a str: what the type checker needs to know.
    @overload
    def text(self, name: str, default: str) -> str: ...
    @overload
    def text(self, name: str, default: None = None) -> str | None: ...

    def text(self, name: str, default: str | None = None) -> str | None:
        value = self.env.get(name, "").strip()
        return value or default

    def fail(self, name: str, accepts: str) -> NoReturn:
        shown = "(hidden)" if name in _SECRETS else repr(self.env.get(name, ""))
        raise ConfigError(f"{name}={shown}: must be {accepts}")

    @overload
    def number(
        self, name: str, default: float, *, minimum: float, maximum: float = math.inf
    ) -> float: ...
    @overload
    def number(
        self, name: str, default: None, *, minimum: float, maximum: float = math.inf
    ) -> float | None: ...

    def number(
        self, name: str, default: float | None, *, minimum: float, maximum: float = math.inf
    ) -> float | None:
        return self._parsed(name, default, minimum, float, maximum)

    @overload
    def integer(self, name: str, default: int, *, minimum: int) -> int: ...
    @overload
    def integer(self, name: str, default: None, *, minimum: int) -> int | None: ...

    def integer(self, name: str, default: int | None, *, minimum: int) -> int | None:
        return self._parsed(name, default, minimum, int)

    def _parsed(
        self,
        name: str,
        default: N | None,
        minimum: float,
        kind: type[N],
        maximum: float = math.inf,
    ) -> N | None:
        raw = self.text(name)
        if raw is None:
            return default
        accepts = f"{'an integer' if kind is int else 'a number'} >= {minimum}"
        if maximum != math.inf:
            accepts += f" and <= {maximum:g}"
        try:
            value = kind(raw)
        except ValueError:
            self.fail(name, accepts)
        if not (math.isfinite(value) and minimum <= value <= maximum):
            self.fail(name, accepts)
        return value

    def url(self, name: str) -> str | None:
        raw = self.text(name)
        if raw is None:
            return None
        parts = urlsplit(raw)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
            self.fail(name, "an http(s) URL such as http://127.0.0.1:8000, or empty")
        return raw.rstrip("/")

    @overload
    def secret(self, name: str, default: str) -> bytes: ...
    @overload
    def secret(self, name: str, default: None = None) -> bytes | None: ...

    def secret(self, name: str, default: str | None = None) -> bytes | None:
        text = self.text(name, default)
        if text is None:
            return None
        value = text.encode("utf-8")
        if len(value) < MIN_JWT_SECRET_BYTES:
            self.fail(name, f"at least {MIN_JWT_SECRET_BYTES} bytes of UTF-8")
        return value

    def secret_id(self, name: str, literal: str) -> str | None:
        """Where a key lives in Secrets Manager; never beside the key itself."""
        value = self.matching(name, _SECRET_ID, None, "a Secrets Manager secret name or ARN")
        if value is not None and self.text(literal) is not None:
            self.fail(name, f"empty when {literal} is set (one place for the key)")
        return value

    def https_url(self, name: str) -> str | None:
        """An https URL, exactly as given (an issuer is compared with the tokens' `iss`
        character for character): keys and identities are not fetched in the clear,
        except from this machine (a local identity provider, the tests)."""
        raw = self.text(name)
        if raw is None or self.url(name) is None:
            return None
        if not raw.startswith("https://") and urlsplit(raw).hostname not in (
            "127.0.0.1",
            "localhost",
        ):
            self.fail(name, "an https URL (http only on 127.0.0.1), or empty")
        return raw

    @overload
    def matching(self, name: str, pattern: re.Pattern, default: str, accepts: str) -> str: ...
    @overload
    def matching(
        self, name: str, pattern: re.Pattern, default: None, accepts: str
    ) -> str | None: ...

    def matching(
        self, name: str, pattern: re.Pattern, default: str | None, accepts: str
    ) -> str | None:
        value = self.text(name, default)
        if value is not None and not pattern.fullmatch(value):
            self.fail(name, accepts)
        return value

    @overload
    def function(self, name: str, default: str) -> str: ...
    @overload
    def function(self, name: str, default: None = None) -> str | None: ...

    def function(self, name: str, default: str | None = None) -> str | None:
        accepts = "a Lambda function name or ARN" + (", or empty" if default is None else "")
        return self.matching(name, _FUNCTION, default, accepts)

    def flag(self, name: str) -> bool:
        value = self.text(name, "false").lower()
        if value not in ("true", "false", "1", "0"):
            self.fail(name, "true or false")
        return value in ("true", "1")

    def retry_schedule(self, name: str, default: tuple[int, ...]) -> tuple[int, ...]:
        """Whole seconds, as many as `default` has (the queue's redrive counts them)."""
        raw = self.text(name)
        if raw is None:
            return default
        accepts = (
            f"{len(default)} whole numbers of seconds from 0 to {MAX_VISIBILITY_SECONDS}, "
            "separated by commas (e.g. 1,2,4,8,16)"
        )
        parts = [part.strip() for part in raw.split(",")]
        if len(parts) != len(default) or not all(map(ascii_digits, parts)):
            self.fail(name, accepts)
        seconds = tuple(int(part) for part in parts)
        if max(seconds) > MAX_VISIBILITY_SECONDS:
            self.fail(name, accepts)
        return seconds


def stop_process(error: ConfigError) -> NoReturn:
    """End a process that cannot start: its one line on stderr, exit status 2."""
    print(f"Configuration error: {error}", file=sys.stderr, flush=True)
    raise SystemExit(2) from None
