"""A notification's payload: any JSON object, however deeply it nests, up to the body's
1 MiB (docs/api.md#notifications); and how much of it a log line holds.

A payload is logged whole, as JSON, up to LOGGED_CHARACTERS of its JSON and LOGGED_DEPTH
levels of nesting; a larger one is logged cut to that, with its full size, so that no
request can write megabytes of log; a deeper one is logged as a string, so that no line
is too deep for the JSON readers of logs (Python's stops at about a thousand levels).
"""

from dataclasses import dataclass

from common.platform import jsonio
from common.platform.errors import Invalid

LOGGED_CHARACTERS = 16 * 1024
LOGGED_DEPTH = 64


@dataclass(frozen=True)
class Payload:
    text: str  # its JSON, without white space between tokens
    size: int  # the body's bytes, as received
    shallow: bool = True  # nested LOGGED_DEPTH levels at most


def parse_payload(raw: bytes | str | None) -> Payload:
    """The body as a JSON object; a 400 that says what is wrong with anything else."""
    try:
        try:
            value = jsonio.loads(raw, max_depth=None)
            text, shallow = jsonio.dumps(value), jsonio.within_depth(value, LOGGED_DEPTH)
        except (jsonio.TooDeep, RecursionError):
            # deeper than the parser (or encoder) reaches
            text, shallow = jsonio.compact_any(raw), False
    except jsonio.InvalidJson as exc:
        raise Invalid("INVALID_JSON", str(exc).capitalize()) from None
    if not text.startswith("{"):
        raise Invalid("INVALID_JSON", "The body must be a JSON object")
    assert raw is not None  # jsonio refuses a missing body (InvalidJson)
    size = len(raw.encode("utf-8") if isinstance(raw, str) else raw)
    return Payload(text, size, shallow)


def log_fields(payload: Payload) -> dict:
    """What the request's log line says of the payload: all of it, as JSON; or, too deep,
    all of it as a string; or, too large, its first LOGGED_CHARACTERS (as a string) and
    its size."""
    if len(payload.text) > LOGGED_CHARACTERS:
        return {
            "payload": _cut(payload.text, LOGGED_CHARACTERS),
            "payload_bytes": payload.size,
            "payload_cut": True,
        }
    return {"payload": jsonio.raw(payload.text) if payload.shallow else payload.text}


def _cut(text: str, limit: int) -> str:
    """The longest start of `text` whose JSON string (as the log line writes it, every
    character outside ASCII escaped) is at most about `limit` characters."""
    end = limit
    while True:
        written = len(jsonio.dumps(text[:end]))
        if written <= limit + 2:
            return text[:end]
        end = end * limit // written
