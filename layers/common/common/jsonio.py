"""JSON in and out, with money kept exact: numbers with a fraction are Decimal both ways."""

from decimal import Decimal

import simplejson


class InvalidJson(ValueError):
    pass


def _reject_constant(name: str):
    raise InvalidJson(f"{name} is not a JSON number")


def _integer(text: str):
    # Python refuses int() of more than 4300 digits; such a number is still valid JSON
    # (a notification may carry one), and storage validation rejects it later.
    return int(text) if len(text) <= 4000 else Decimal(text)


def loads(raw: bytes | str | None):
    """Parse a request body; NaN/Infinity and invalid UTF-8 are rejected like bad JSON."""
    if raw is None:
        raise InvalidJson("the body is empty")
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidJson("the body is not UTF-8") from None
    if not raw.strip():
        raise InvalidJson("the body is empty")
    try:
        return simplejson.loads(raw, parse_float=Decimal, parse_int=_integer,
                                parse_constant=_reject_constant)
    except simplejson.JSONDecodeError as exc:
        raise InvalidJson(f"the body is not valid JSON: {exc.msg} at position {exc.pos}") from None
    except RecursionError:
        raise InvalidJson("the body nests too deeply") from None


def dumps(value, *, ascii_only: bool = True) -> str:
    # default=str keeps a stray datetime or set printable in logs instead of raising.
    return simplejson.dumps(value, use_decimal=True, default=str, separators=(",", ":"),
                            ensure_ascii=ascii_only)

