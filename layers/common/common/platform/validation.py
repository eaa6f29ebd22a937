"""Field checks for request bodies: strict JSON types, every problem reported at once.

A Checker walks one body and collects {"field", "message"} details; `done()` raises one
Invalid error with all of them, so a client fixes its request in one round trip.
"""

import re
import unicodedata
from decimal import Context, Decimal
from typing import Any

from common.platform.errors import invalid_field, invalid_fields
from common.platform.ids import MAX_ID

# Bounds that keep every accepted value storable: DynamoDB numbers carry 38 significant
# digits, and an item is at most 400 KB. Without them a valid-looking body becomes a 500.
MAX_DIGITS = 38
MAX_EXPONENT = 125
MIN_EXPONENT = -130
MAX_TEXT = 1000
# Units (stock, thresholds, quantities): what the system this one replaces held in a
# 32-bit integer, far beyond any warehouse, and any notation of a larger one is refused.
MAX_COUNT = 2**31 - 1
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")
# Cognito's limit for an account's email attribute (RFC 5321's path).
MAX_EMAIL = 254


def normal_email(email: str) -> str:
    """An email as the platform keeps and compares it (docs/api.md#signing-in): trimmed,
    NFKC-normalised and lower-cased, so one address is one account whatever its case or
    Unicode form (fullwidth letters, a fullwidth @, ...). Normalised again after
    lower-casing, which can undo NFKC (a dotted capital I), so that it is idempotent."""
    folded = unicodedata.normalize("NFKC", _visible(email)).strip().lower()
    return _visible(unicodedata.normalize("NFKC", folded))


def _visible(text: str) -> str:
    """`text` without the characters no one sees (Unicode's format characters: U+200B,
    U+2060, U+00AD, U+FEFF, ...): two emails that look alike are one."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def _is_number(value: object) -> bool:
    # bool is an int subclass in Python, but `true` is not a number in JSON.
    return isinstance(value, int | Decimal) and not isinstance(value, bool)


def canonical(value: int | Decimal) -> int | Decimal:
    """The number as DynamoDB stores it: no trailing fractional zeros, no -0, and a
    whole number as a plain integer, so a POST echoes what a later GET returns."""
    if isinstance(value, int):
        return value
    value = value.normalize(Context(prec=MAX_DIGITS + 2))
    if value == value.to_integral_value() and value.adjusted() < MAX_DIGITS:
        return int(value)
    return value


def _storable(value: int | Decimal) -> bool:
    if isinstance(value, int):
        return len(str(abs(value))) <= MAX_DIGITS
    if not value.is_finite():
        return False
    if value.is_zero():
        return True
    # Not normalize(): it rounds to the context's 28 digits and would hide a 39th.
    significant = "".join(map(str, value.as_tuple().digits)).rstrip("0")
    return len(significant) <= MAX_DIGITS and MIN_EXPONENT <= value.adjusted() <= MAX_EXPONENT


class Checker:
    """`prefix`: where in a larger body this one is (`lineas[2].`), every detail naming
    its field from there; `details`: the larger body's, which this one adds to."""

    def __init__(self, body: dict, prefix: str = "", details: list[dict] | None = None):
        self.body = body
        self.prefix = prefix
        self.details: list[dict] = details if details is not None else []

    def fail(self, field: str, message: str) -> None:
        self.details.append({"field": f"{self.prefix}{field}", "message": message})

    def objects(self, field: str, *, minimum: int, maximum: int) -> list["Checker"] | None:
        """A list of `minimum` to `maximum` JSON objects, each checked by the Checker
        returned for it, whose details name its fields by index (`lineas[0].cantidad`)."""
        value = self._present(field, True)
        if value is None:
            return None
        if not isinstance(value, list):
            self.fail(field, "must be a list")
            return None
        if not minimum <= len(value) <= maximum:
            self.fail(field, f"must hold {minimum} to {maximum} items")
            return None
        checkers = []
        for index, item in enumerate(value):
            if not isinstance(item, dict):
                self.fail(f"{field}[{index}]", "must be an object")
                continue
            checkers.append(Checker(item, f"{self.prefix}{field}[{index}].", self.details))
        return checkers if len(checkers) == len(value) else None

    def _present(self, field: str, required: bool) -> Any:
        value = self.body.get(field)
        if value is None and required:
            self.fail(field, "is required")
        return value

    def text(self, field: str, *, required: bool = True, max_length: int = MAX_TEXT) -> Any:
        """A string; when required it must not be blank. Optional ones may be null."""
        value = self._present(field, required)
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(field, "must be a string")
            return None
        if required and not value.strip():
            self.fail(field, "must not be blank")
            return None
        if len(value) > max_length:
            self.fail(field, f"must be at most {max_length} characters")
            return None
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            self.fail(field, "must be valid Unicode text")
            return None
        return value

    def choice(self, field: str, options: tuple[str, ...]) -> Any:
        value = self._present(field, True)
        if value is None:
            return None
        if not isinstance(value, str) or value not in options:
            self.fail(field, f"must be one of {', '.join(options)}")
            return None
        return value

    def email(self, field: str) -> Any:
        value = self.text(field)
        if value is not None and not EMAIL.fullmatch(value):
            self.fail(field, "must be an email address like name@example.com")
            return None
        return value

    def integer(self, field: str, *, minimum: int, maximum: int) -> Any:
        """A JSON integer from `minimum` to `maximum`, whatever its notation: 5.0 and 5E0
        are 5; 1.5 and "5" are not integers; 1E+38 is one, out of range."""
        value = self._present(field, True)
        if value is None:
            return None
        if not _is_number(value) or (
            isinstance(value, Decimal)
            and (not value.is_finite() or value != value.to_integral_value())
        ):
            self.fail(field, "must be an integer")
            return None
        if not minimum <= value <= maximum:  # compared before int(): 1E+999999 stays cheap
            self.fail(field, f"must be an integer from {minimum} to {maximum}")
            return None
        return int(value)

    def identifier(self, field: str) -> Any:
        """Another entity's id (common.platform.ids): 1 to MAX_ID."""
        return self.integer(field, minimum=1, maximum=MAX_ID)

    def count(self, field: str, *, minimum: int) -> Any:
        """A number of units: `minimum` to MAX_COUNT."""
        return self.integer(field, minimum=minimum, maximum=MAX_COUNT)

    def number(self, field: str, *, minimum: int | None = None) -> Any:
        value = self._present(field, True)
        if value is None:
            return None
        if not _is_number(value):
            self.fail(field, "must be a number")
            return None
        if not _storable(value):
            self.fail(field, f"must fit in {MAX_DIGITS} significant digits")
            return None
        return self._at_least(field, canonical(value), minimum)

    def _at_least(self, field: str, value: Any, minimum: int | None) -> Any:
        if minimum is not None and value < minimum:
            self.fail(field, f"must be >= {minimum}")
            return None
        return value

    def done(self) -> None:
        if self.details:
            raise invalid_fields(self.details)


# -- query parameters: optional filters of lists ------------------------------------------


def query_choice(field: str, raw: str | None, options: tuple[str, ...]) -> str | None:
    """An optional query parameter that must be one of `options`, exactly."""
    if raw is None:
        return None
    if raw not in options:
        raise invalid_field(field, f"must be one of {', '.join(options)}")
    return raw


def required_query_choice(field: str, raw: str | None, options: tuple[str, ...]) -> str:
    """A query parameter that must be there and one of `options`, exactly. Missing, the
    message says where it goes: a client that sent it in a body learns that no body is
    read for it."""
    if raw is None:
        raise invalid_field(
            field,
            f"is required as a query parameter (?{field}=...; the "
            f"body is not read), one of {', '.join(options)}",
        )
    chosen = query_choice(field, raw, options)
    assert chosen is not None  # raw was given: query_choice returns it or refuses it
    return chosen


def query_positive_integer(field: str, raw: str | None) -> int | None:
    """An optional query parameter holding what a body's positive integer may hold (up to
    MAX_DIGITS digits), so that whatever was stored can be asked for."""
    if raw is None:
        return None
    if not re.fullmatch(rf"[0-9]{{1,{MAX_DIGITS}}}", raw) or int(raw) < 1:
        raise invalid_field(field, f"must be a positive integer of at most {MAX_DIGITS} digits")
    return int(raw)
