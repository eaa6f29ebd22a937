"""Lists in pages (docs/api.md#lists): a page, its limit, and the signed token of the next one.

Every list is in ascending id, so "where the next page starts" is one number: the id
after which it continues. A token carries that id bound to the list and its filters,
signed with HMAC so that only a token exactly as issued is accepted: edited, made up,
or taken from another list or filter, it is refused.
"""

import base64
import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from common.platform.errors import invalid_field
from common.platform.keys import KeyRing

MAX_LIMIT = 1000
_DIGITS = re.compile(r"[0-9]{1,4}")
_MAC_BYTES = 16  # 128 bits: short tokens, still unforgeable


@dataclass(frozen=True)
class Page:
    """Items in ascending id, and the id after which the list goes on (None: it ends)."""

    items: list
    resume_after: int | None


def parse_limit(raw: str | None) -> int | None:
    """The `limit` query parameter: an integer 1..1000, or None when absent."""
    if raw is None:
        return None
    if not _DIGITS.fullmatch(raw) or not 1 <= int(raw) <= MAX_LIMIT:
        raise invalid_field("limit", f"must be an integer from 1 to {MAX_LIMIT}")
    return int(raw)


def _encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(key: bytes, payload: bytes) -> bytes:
    return hmac.new(key, payload, hashlib.sha256).digest()[:_MAC_BYTES]


def _scope(list_name: str, filters: Mapping[str, str | None]) -> dict:
    return {
        "list": list_name,
        "filters": {name: value for name, value in sorted(filters.items()) if value is not None},
    }


def issue_token(
    keys: KeyRing, list_name: str, filters: Mapping[str, str | None], after: int
) -> str:
    key = keys.signing()
    payload = json.dumps(
        {**_scope(list_name, filters), "after": after, "kid": key.kid},
        separators=(",", ":"),
        sort_keys=True,
    ).encode("utf-8")
    return f"{_encode(payload)}.{_encode(_sign(key.secret, payload))}"


def read_token(
    keys: KeyRing, token: str | None, list_name: str, filters: Mapping[str, str | None]
) -> int:
    """The id after which the page starts: 0 without a token; 400 for one this list and
    these filters did not issue. The token names the key version it was signed with;
    the current and the previous version are accepted (common.platform.keys)."""
    if token is None:
        return 0
    refused = invalid_field("nextToken", "is not a token this list issued for these filters")
    encoded, _, mac = token.partition(".")
    try:
        payload, signature = _decode(encoded), _decode(mac)
        content = json.loads(payload)
        kid = content.get("kid")
    except (ValueError, AttributeError):
        raise refused from None
    if not isinstance(kid, str | None) or not any(
        hmac.compare_digest(signature, _sign(key.secret, payload)) for key in keys.verifying(kid)
    ):
        raise refused
    if {k: content.get(k) for k in ("list", "filters")} != _scope(list_name, filters):
        raise refused
    return content["after"]
