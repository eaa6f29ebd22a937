"""A notification's payload: any JSON object, however deeply it nests, up to the body's
1 MiB (docs/api.md#notifications); and how much of it a log line holds.

A payload is logged whole up to LOGGED_CHARACTERS of its JSON; a larger one is logged cut
to that, with its full size, so that no request can write megabytes of log.
"""

from dataclasses import dataclass

from common import jsonio
from common.errors import Invalid

LOGGED_CHARACTERS = 16 * 1024


@dataclass(frozen=True)
class Payload:
    text: str  # its JSON, without white space between tokens
    size: int  # the body's bytes, as received


def parse_payload(raw: bytes | str | None) -> Payload:
    """The body as a JSON object; a 400 that says what is wrong with anything else."""
    try:
        try:
            text = jsonio.dumps(jsonio.loads(raw, max_depth=None))
        except (jsonio.TooDeep, RecursionError):
            text = jsonio.compact_any(raw)  # deeper than the parser (or encoder) reaches
    except jsonio.InvalidJson as exc:
        raise Invalid("INVALID_JSON", str(exc).capitalize()) from None
    if not text.startswith("{"):
        raise Invalid("INVALID_JSON", "The body must be a JSON object")
    size = len(raw.encode("utf-8") if isinstance(raw, str) else raw)
    return Payload(text, size)


def log_fields(payload: Payload) -> dict:
    """What the request's log line says of the payload: all of it, as JSON, or its first
    LOGGED_CHARACTERS (as a string) and its size."""
    if len(payload.text) <= LOGGED_CHARACTERS:
        return {"payload": jsonio.raw(payload.text)}
    return {"payload": _cut(payload.text, LOGGED_CHARACTERS), "payload_bytes": payload.size,
            "payload_cut": True}


def _cut(text: str, limit: int) -> str:
    """The longest start of `text` whose JSON string (as the log line writes it, every
    character outside ASCII escaped) is at most about `limit` characters."""
    end = limit
    while True:
        written = len(jsonio.dumps(text[:end]))
        if written <= limit + 2:
            return text[:end]
        end = end * limit // written
