"""JSON in and out, with money kept exact: numbers with a fraction are Decimal both ways."""

import re
from decimal import Decimal
from typing import Any, NoReturn

import simplejson

# How deep an API request body may nest: every resource is a flat object, so this is
# generous; it bounds the work any body can cause (validation, its fingerprint), whatever
# comes with it (docs/api.md#limits).
MAX_DEPTH = 32


class InvalidJson(ValueError):
    pass


class TooDeep(InvalidJson):
    """Valid as far as it was read, but nested deeper than allowed or than the parser goes."""


def _reject_constant(name: str) -> NoReturn:
    raise InvalidJson(f"{name} is not a JSON number")


def _integer(text: str) -> int | Decimal:
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


def loads(raw: bytes | str | None, max_depth: int | None = MAX_DEPTH) -> Any:
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
    # A lone surrogate ("\ud800") is valid JSON and no text: stored, it made every later
    # answer that shows it fail (UTF-8 cannot write it). Only an escape can make one.
    if "\\u" in raw and not _unicode_text(value):
        raise InvalidJson("the body holds a \\u escape that is no character (a lone surrogate)")
    return value


def _unicode_text(value: object) -> bool:
    """Whether every string in `value` (keys too) is text UTF-8 can write."""
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def within_depth(value: object, limit: int) -> bool:
    """Whether no array or object inside `value` is more than `limit` levels deep."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return False
            stack.extend(
                (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
            )
    return True


def dumps(value: object, *, ascii_only: bool = True) -> str:
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


class _OneValue:
    """The tokens of one JSON value, each checked against what may come next: "value",
    "key" (or the "}" of an empty object), ":", or "next" (a "," or a close)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.stack: list[str] = []  # the open "{" and "[", innermost last
        self.expect = "value"

    @property
    def done(self) -> bool:
        return not self.stack and self.expect == "next"

    def take(self, kind: str, token: str) -> bool:
        """Take the token, or False when it may not come here."""
        taken = self._close(token) if kind == "mark" and token in "}]" else self._step(kind, token)
        if taken:
            self.parts.append(token)
        return taken

    def _close(self, token: str) -> bool:
        opener = "{" if token == "}" else "["
        if not self.stack or self.stack[-1] != opener:
            return False
        empty = self.parts[-1] == opener
        if self.expect != "next" and not (empty and self.expect in ("key", "value")):
            return False
        self.stack.pop()
        self.expect = "next"
        return True

    def _step(self, kind: str, token: str) -> bool:
        if self.expect == "key":
            taken, after = kind == "string", ":"
        elif self.expect == ":":
            taken, after = token == ":", "value"
        elif self.expect == "next":
            taken, after = token == ",", "key" if self.stack[-1] == "{" else "value"
        elif kind == "mark":  # a value is expected: an object or an array opens
            taken, after = token in "{[", "key" if token == "{" else "value"
            if taken:
                self.stack.append(token)
        else:
            taken, after = True, "next"
        if taken:
            self.expect = after
        return taken


def compact_any(raw: bytes | str | None) -> str:
    """The JSON text `raw` without the white space between its tokens, however deeply it
    nests; InvalidJson when it is not exactly one JSON value."""
    text = _text(raw)
    value, position = _OneValue(), 0
    for match in _TOKEN.finditer(text):
        if match.start() != position:
            break  # a character no token starts with
        position = match.end()
        kind, token = match.lastgroup or "", match.group()
        if kind == "space":
            continue
        if value.done:
            raise InvalidJson(f"the body is not valid JSON: extra data at {match.start()}")
        if not value.take(kind, token):
            break
    if position != len(text) or not value.done:
        raise InvalidJson(f"the body is not valid JSON at position {position}")
    return "".join(value.parts)
