"""Delivering one message of the queue: one attempt of its event to its endpoint, what it
answered recorded, and what happens next (rules.decide). Storage and the sending are
passed in."""

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Protocol

from common.clock import to_iso
from common.errors import NotFound
from common.personal import event_subject, stripped_event
from webhook_delivery import rules, signatures
from webhook_delivery.rules import Decision, Next
from webhook_delivery.sender import Sent
from webhooks import targets
from webhooks.messages import DeliveryMessage
from webhooks.rules import PENDING, Attempt, Delivery, Endpoint, position


class Endpoints(Protocol):
    def get(self, ident: int) -> Endpoint: ...
    def deactivate(self, ident: int) -> None: ...


class Deliveries(Protocol):
    def open(self, delivery: Delivery, now: datetime) -> Delivery: ...
    def attempted(self, delivery: Delivery, estado: str, now: datetime) -> bool: ...


class Attempts(Protocol):
    def add(self, webhook_id: int, attempt: Attempt, now: datetime) -> None: ...


# One attempt of a delivery to an endpoint at an instant: what came back.
Send = Callable[[Endpoint, Delivery, datetime], Sent]
# What the delivery's consumer does with a message: nothing to do, or the decision.
NOTHING = Decision(Next.DONE, PENDING)


@dataclass(frozen=True)
class Stores:
    """Where a delivery's state is kept, and whether the person an event is about was
    erased (common.user_ids: their data then never goes out again)."""

    endpoints: Endpoints
    deliveries: Deliveries
    attempts: Attempts
    erased: Callable[[int | None], bool]


def deliver(
    message: DeliveryMessage,
    attempt: int,
    stores: Stores,
    send: Send,
    schedule: tuple[int, ...],
    now: datetime,
) -> Decision:
    """Attempt number `attempt` of the message's send. Nothing is sent for an endpoint
    deleted or turned off, nor for a delivery already over or replaced by a re-send (a
    message that came twice). An event about a person who was erased since it was made
    is sent, and kept for re-sends, without their data (docs/personal-data.md)."""
    try:
        endpoint = stores.endpoints.get(message.webhook_id)
    except NotFound:
        return NOTHING
    if not endpoint.activo:
        return NOTHING
    erased = stores.erased(
        message.user_id if message.user_id is not None else event_subject(message.body)
    )
    if erased:
        message = replace(message, body=stripped_event(message.body))
    delivery = stores.deliveries.open(message.delivery(), now)
    if delivery.envio != message.envio or delivery.estado != PENDING:
        return NOTHING
    if erased:  # kept before the erasure: its stored copy is stripped by the erasure
        delivery = replace(delivery, body=stripped_event(delivery.body))
    sent = send(endpoint, delivery, now)
    decision = rules.decide(sent.status, attempt, schedule)
    stores.attempts.add(endpoint.id, _attempt(delivery, attempt, sent, decision, now), now)
    stores.deliveries.attempted(delivery, decision.estado, now)
    if sent.status == rules.GONE:
        stores.endpoints.deactivate(endpoint.id)
    return decision


def _attempt(
    delivery: Delivery, attempt: int, sent: Sent, decision: Decision, now: datetime
) -> Attempt:
    return Attempt(
        id=position(now),
        event_id=delivery.event_id,
        type=delivery.type,
        intento=attempt,
        status_code=sent.status,
        error=sent.error,
        estado=decision.estado,
        timestamp=to_iso(now),
        duracion_ms=sent.duration_ms,
    )


Post = Callable[[targets.Target, str, dict[str, str], bytes], Sent]


def signed_attempt(
    endpoint: Endpoint, delivery: Delivery, now: datetime, local: bool, post: Post
) -> Sent:
    """The delivery's body POSTed to the endpoint, signed with each secret that signs
    now; a target that is no longer allowed (its name resolves elsewhere now) is not
    contacted, and counts as a failed attempt."""
    try:
        target, address = targets.checked(endpoint.url, local)
    except targets.Refused as why:
        return Sent(None, f"not delivered: the url {why}", 0)
    body = delivery.body.encode("utf-8")
    timestamp = int(now.replace(tzinfo=UTC).timestamp())
    headers = signatures.headers(endpoint.signing_secrets(now), delivery.event_id, timestamp, body)
    return post(target, address, headers, body)
