"""What makes two JSON bodies the same body, for `Idempotency-Key`
(docs/api.md#retries-without-duplicates-idempotency-key): equal once parsed, whatever
their key order or white space, and a number equal to the same number however written
(`19.990` and `19.99`, `5` and `5.0`), but never to a string (`1.5` is not `"1.5"`)."""

import hashlib
from decimal import Decimal

import simplejson


def fingerprint(body: object) -> str:
    """A short, stable digest of `body` (already bounded in depth: common.platform.jsonio)."""
    text = simplejson.dumps(
        _canonical(body), sort_keys=True, separators=(",", ":"), ensure_ascii=True
    )
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _canonical(value: object) -> object:
    if isinstance(value, dict):
        return {key: _canonical(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float | Decimal):
        return simplejson.RawJSON(_number(value))
    return value


def _number(value: int | float | Decimal) -> str:
    """A number's one spelling: its digits without trailing zeros and its exponent, read
    off the value itself, with no arithmetic that a huge exponent could overflow."""
    number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if not number.is_finite():
        return f'"{number}"'  # not JSON; only ever in a payload that is not ours
    sign, digit_tuple, exponent = number.as_tuple()
    assert isinstance(exponent, int)  # a letter ('n', 'N', 'F') only for what is not finite
    digits = list(digit_tuple)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exponent += 1
    if digits == [0]:
        return "0"
    return f"{'-' if sign else ''}{''.join(map(str, digits))}E{exponent}"
