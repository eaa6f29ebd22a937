"""JSON in and out, with money kept exact: numbers with a fraction are Decimal both ways."""

import re
from decimal import Decimal

import simplejson

# How deep an API request body may nest: every resource is a flat object, so this is
# generous; it bounds the work any body can cause (validation, its fingerprint), whatever
# comes with it (docs/api.md#limits).
MAX_DEPTH = 32


class InvalidJson(ValueError):
    pass


class TooDeep(InvalidJson):
    """Valid as far as it was read, but nested deeper than allowed or than the parser goes."""


def _reject_constant(name: str):
    raise InvalidJson(f"{name} is not a JSON number")


def _integer(text: str):
    # Python refuses int() of more than 4300 digits; such a number is still valid JSON
    # (a notification may carry one), and storage validation rejects it later.
    return int(text) if len(text) <= 4000 else Decimal(text)


def _text(raw: bytes | str | None) -> str:
    if raw is None:
        raise InvalidJson("the body is empty")
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidJson("the body is not UTF-8") from None
    if not raw.strip():
        raise InvalidJson("the body is empty")
    return raw


def _reason(exc: simplejson.JSONDecodeError) -> str:
    """The parser's reason in words. A few of simplejson's messages are templates it fills
    with the character at fault ("Invalid control character %r at"): filled here."""
    if "%r" not in exc.msg:
        return exc.msg
    return exc.msg.replace("%r", repr(exc.doc[exc.pos : exc.pos + 1])).removesuffix(" at")


def loads(raw: bytes | str | None, max_depth: int | None = MAX_DEPTH):
    """Parse a request body; NaN/Infinity and invalid UTF-8 are rejected like bad JSON, and
    so is a body nested deeper than `max_depth` (None: as deep as the parser goes)."""
    raw = _text(raw)
    try:
        value = simplejson.loads(
            raw, parse_float=Decimal, parse_int=_integer, parse_constant=_reject_constant
        )
    except simplejson.JSONDecodeError as exc:
        raise InvalidJson(
            f"the body is not valid JSON: {_reason(exc)} at position {exc.pos}"
        ) from None
    except RecursionError:
        raise TooDeep("the body nests too deeply") from None
    if max_depth is not None and not within_depth(value, max_depth):
        raise TooDeep(f"the body nests deeper than {max_depth} levels")
    return value


def within_depth(value, limit: int) -> bool:
    """Whether no array or object inside `value` is more than `limit` levels deep."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return False
            stack.extend(
                (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
            )
    return True


def dumps(value, *, ascii_only: bool = True) -> str:
    # default=str keeps a stray datetime or set printable in logs instead of raising.
    return simplejson.dumps(
        value, use_decimal=True, default=str, separators=(",", ":"), ensure_ascii=ascii_only
    )


def raw(text: str) -> simplejson.RawJSON:
    """JSON text `dumps` writes as it is, inside what it encodes (a log line)."""
    return simplejson.RawJSON(text)


# -- any JSON, however deep ----------------------------------------------------------------
# simplejson's parser recurses, so a body nested a few hundred levels deep is out of its
# reach. A notification may be any JSON object (docs/api.md#notifications), so this
# checks one token at a time with a stack of its own, and gives the text back compact.

_TOKEN = re.compile(
    r"""
    (?P<mark>[{}\[\]:,])
  | (?P<space>[ \t\n\r]+)
  | (?P<string>"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")
  | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
  | (?P<literal>true|false|null)
""",
    re.VERBOSE,
)


def compact_any(raw: bytes | str | None) -> str:
    """The JSON text `raw` without the white space between its tokens, however deeply it
    nests; InvalidJson when it is not exactly one JSON value."""
    text = _text(raw)
    parts: list[str] = []
    # What may come next: "value", "key" (or "}" of an empty object), ":" or ","/close.
    stack: list[str] = []  # the open "{" and "[", innermost last
    expect, position, done = "value", 0, False
    for match in _TOKEN.finditer(text):
        if match.start() != position:
            break  # a character no token starts with
        position = match.end()
        kind, token = match.lastgroup, match.group()
        if kind == "space":
            continue
        if done:
            raise InvalidJson(f"the body is not valid JSON: extra data at {match.start()}")
        if kind == "mark" and token in "}]":
            opener = "{" if token == "}" else "["
            empty = parts and parts[-1] == opener
            if (
                not stack
                or stack[-1] != opener
                or (expect != "next" and not (empty and expect in ("key", "value")))
            ):
                break
            stack.pop()
            expect = "next"
        elif expect == "key":
            if kind != "string":
                break
            expect = ":"
        elif expect == ":":
            if token != ":":
                break
            expect = "value"
        elif expect == "next":
            if token != ",":
                break
            expect = "key" if stack[-1] == "{" else "value"
        elif kind == "mark":  # a value is expected
            if token not in "{[":
                break
            stack.append(token)
            expect = "key" if token == "{" else "value"
        else:
            expect = "next"
        parts.append(token)
        done = not stack and expect == "next"
    if position != len(text) or not done:
        raise InvalidJson(f"the body is not valid JSON at position {position}")
    return "".join(parts)
