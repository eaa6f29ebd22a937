"""Signing a delivery as Standard Webhooks 1.0 specifies (docs/api.md#verifying-a-delivery).

Every delivery carries `webhook-id` (the event's id, the same on every attempt),
`webhook-timestamp` (the attempt's, in seconds) and `webhook-signature`: `v1,` and the
base64 of HMAC-SHA256 over "{webhook-id}.{webhook-timestamp}.{body}", keyed with the
base64-decoded part of the secret after `whsec_`. During a rotation's window it holds
one such signature per secret, separated by spaces: a receiver that knows either secret
accepts the delivery.
"""

import base64
import hashlib
import hmac

SECRET_PREFIX = "whsec_"
VERSION = "v1"


def key_of(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(key_of(secret), signed, hashlib.sha256).digest()
    return f"{VERSION},{base64.b64encode(digest).decode('ascii')}"


def headers(secrets: list[str], message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt, signed with each of `secrets`."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(
            signature(secret, message_id, timestamp, body) for secret in secrets
        ),
    }
