"""A carrier's side of the tracking intake (docs/api.md#carriers): the headers that sign
an event as Standard Webhooks specifies, made with the specification's own library."""

from datetime import datetime

from standardwebhooks import Webhook


def signed(secret: str, raw: bytes | str, msg_id: str, when: datetime | None = None) -> dict:
    """webhook-id, webhook-timestamp and webhook-signature for a body signed at `when`."""
    when = when or datetime.now()
    text = raw.decode() if isinstance(raw, bytes) else raw
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(when.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id, when, text),
    }
