"""The message that carries one event to one endpoint through the delivery queue: what
the events function sends, a re-send sends again, and the delivery function reads.

It carries the event whole (its id, type and body, the exact bytes every attempt
sends), so the first attempt needs nothing else; which send of the delivery it is
(`envio`: 0, then one more per re-send), so a message a re-send replaced does nothing;
and whom the event is about (`userId`, an order's or a shipment's person), so that it
goes out without their data once they are erased (docs/personal-data.md).
"""

import json
from dataclasses import dataclass

from common.webhook_records import PENDING, Delivery


@dataclass(frozen=True, kw_only=True)
class DeliveryMessage:
    """What the delivery queue carries: one event for one endpoint."""

    webhook_id: int
    event_id: str
    type: str
    body: str
    envio: int = 0
    user_id: int | None = None

    def delivery(self) -> Delivery:
        """The delivery this message opens, if it is its event's first to the endpoint."""
        return Delivery(
            webhook_id=self.webhook_id,
            event_id=self.event_id,
            type=self.type,
            body=self.body,
            estado=PENDING,
            envio=self.envio,
            actualizado_en="",
            user_id=self.user_id,
        )


def encoded(message: DeliveryMessage) -> str:
    fields = {
        "webhookId": message.webhook_id,
        "eventId": message.event_id,
        "type": message.type,
        "envio": message.envio,
        "body": message.body,
    }
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
            body=str(raw["body"]),
            envio=int(raw.get("envio", 0)),
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
        body=delivery.body,
        envio=delivery.envio + 1,
        user_id=delivery.user_id,
    )
