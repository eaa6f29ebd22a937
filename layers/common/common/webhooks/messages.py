"""The message that carries one event to one endpoint through the delivery queue: what
the events function sends, a re-send sends again, and the delivery function reads.

It names the event (its id and type) and not its body: the body is the stored
delivery's (common.webhooks.repository.Deliveries, opened by the events function before
the message is sent), which an erasure strips, where a message waits on the queue for
the retries' hours and SQS can change none. (A message of an earlier version carries
the body, and is read as it was.) It says which send of the delivery it is
(`reenvios`: 0, then one more per re-send), so a message a re-send replaced does nothing;
and whom the event is about (`userId`, an order's or a shipment's person), so that it
goes out without their data once they are erased (docs/personal-data.md).
"""

import json
from dataclasses import dataclass

from common.webhooks.records import PENDING, Delivery


@dataclass(frozen=True, kw_only=True)
class DeliveryMessage:
    """What the delivery queue carries: one event for one endpoint."""

    webhook_id: int
    event_id: str
    type: str
    body: str | None = None  # None: the stored delivery's
    reenvios: int = 0
    user_id: int | None = None

    def delivery(self, body: str) -> Delivery:
        """The delivery of this message's event to its endpoint, as first opened."""
        return Delivery(
            webhook_id=self.webhook_id,
            event_id=self.event_id,
            type=self.type,
            body=body,
            estado=PENDING,
            reenvios=self.reenvios,
            actualizado_en="",
            user_id=self.user_id,
        )


def encoded(message: DeliveryMessage) -> str:
    fields = {
        "webhookId": message.webhook_id,
        "eventId": message.event_id,
        "type": message.type,
        # Its key since before the field had a name of its own: messages already queued
        # by an earlier version are read alike.
        "envio": message.reenvios,
    }
    if message.body is not None:
        fields["body"] = message.body
    if message.user_id is not None:
        fields["userId"] = message.user_id
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))


def decoded(text: str) -> DeliveryMessage:
    """The message a queue record carries; ValueError for anything else."""
    try:
        raw = json.loads(text)
        return DeliveryMessage(
            webhook_id=int(raw["webhookId"]),
            event_id=str(raw["eventId"]),
            type=str(raw["type"]),
            body=str(raw["body"]) if raw.get("body") is not None else None,
            reenvios=int(raw.get("envio", 0)),
            user_id=int(raw["userId"]) if raw.get("userId") is not None else None,
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a delivery message: {exc!r}") from None


def resend_of(delivery: Delivery) -> DeliveryMessage:
    """The message of a delivery's next send (Deliveries.resent has counted it)."""
    return DeliveryMessage(
        webhook_id=delivery.webhook_id,
        event_id=delivery.event_id,
        type=delivery.type,
        reenvios=delivery.reenvios + 1,
        user_id=delivery.user_id,
    )
