"""Delivering one message of the queue: one attempt of its event to its endpoint, what it
answered recorded, and what happens next (rules.decide). Storage and the sending are
passed in."""

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Protocol

from common.platform.clock import to_iso
from common.platform.errors import NotFound
from common.platform.personal import event_subject, stripped_event
from common.webhooks.messages import DeliveryMessage
from common.webhooks.records import (
    FAILED,
    PENDING,
    RETRYING,
    WORKER_STOPPED,
    Attempt,
    Delivery,
    Endpoint,
    position,
)
from webhook_delivery import rules, signatures
from webhook_delivery.rules import Decision, Next
from webhook_delivery.sender import Sent


class Endpoints(Protocol):
    def get(self, ident: int) -> Endpoint: ...
    def deactivate(self, ident: int) -> None: ...


class Deliveries(Protocol):
    def get(self, webhook_id: int, event_id: str) -> Delivery | None: ...
    def open(self, delivery: Delivery, now: datetime) -> Delivery: ...
    def strip(self, webhook_id: int, event_id: str) -> None: ...
    def attempted(
        self,
        delivery: Delivery,
        intento: int,
        estado: str,
        now: datetime,
        siguiente: str | None = None,
    ) -> bool: ...


class Attempts(Protocol):
    def add(self, webhook_id: int, attempt: Attempt, now: datetime) -> None: ...


# One attempt of a delivery to an endpoint at an instant: what came back.
Send = Callable[[Endpoint, Delivery, datetime], Sent]
# What the delivery's consumer does with a message: nothing to do, or the decision.
NOTHING = Decision(Next.DONE, PENDING)
# A message that came back after its last attempt: that attempt's worker died.
GIVEN_UP = Decision(Next.DEAD, FAILED)


@dataclass(frozen=True)
class Stores:
    """Where a delivery's state is kept, and whether the person an event is about was
    erased (common.identity.user_ids: their data then never goes out again)."""

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
    """Attempt number `attempt` of the message's send (its receive count). Nothing is
    sent for an endpoint deleted or turned off, nor for a delivery already over or
    replaced by a re-send (a message that came twice). Attempts before this one that
    have no record (their worker died: the message came back when its visibility ran
    out) are recorded first, as failed; once the last allowed one is among them, the
    delivery is dead and nothing more is sent. An event about a person who was erased
    since it was made is sent, and kept for re-sends, without their data
    (docs/personal-data.md)."""
    try:
        endpoint = stores.endpoints.get(message.webhook_id)
    except NotFound:
        return NOTHING
    if not endpoint.activo:
        return NOTHING
    erased = _erased(message, stores)
    delivery = _stored(message, erased, stores.deliveries, now)
    if delivery is None or delivery.reenvios != message.reenvios or delivery.estado != PENDING:
        return NOTHING
    last = len(schedule) + 1
    upto = min(attempt - 1, last)
    lost = delivery.intentos < upto
    if lost and not _record_lost(delivery, upto, last, stores.deliveries, stores.attempts, now):
        return NOTHING  # a re-send replaced this send meanwhile
    if attempt > last:  # the last attempt was made (or lost): a dead letter
        if not lost:  # recorded, but its worker died before the delivery's state
            stores.deliveries.attempted(delivery, last, FAILED, now)
        return GIVEN_UP
    if erased:
        # Stored before the erasure: its copy is stripped now, whatever the erasure's own
        # progress (it strips every delivery of the person's events too).
        stores.deliveries.strip(delivery.webhook_id, delivery.event_id)
        delivery = replace(delivery, body=stripped_event(delivery.body))
    sent = send(endpoint, delivery, now)
    decision = rules.decide(sent.status, attempt, schedule)
    due = now + timedelta(milliseconds=sent.duration_ms, seconds=decision.delay)
    siguiente = to_iso(due) if decision.next is Next.RETRY else None
    stores.attempts.add(
        endpoint.id, _attempt(delivery, attempt, sent, decision, now, siguiente), now
    )
    stores.deliveries.attempted(delivery, attempt, decision.estado, now, siguiente)
    if sent.status == rules.GONE:
        stores.endpoints.deactivate(endpoint.id)
    return decision


def _stored(
    message: DeliveryMessage, erased: bool, deliveries: Deliveries, now: datetime
) -> Delivery | None:
    """The message's delivery as stored (None: there is none, so nothing to send). A
    message of an earlier version carries its event's body, and opens the delivery with
    it if it is the first (without the data of a person erased since)."""
    if message.body is None:
        return deliveries.get(message.webhook_id, message.event_id)
    body = stripped_event(message.body) if erased else message.body
    return deliveries.open(message.delivery(body), now)


def _erased(message: DeliveryMessage, stores: Stores) -> bool:
    if message.user_id is not None or message.body is None:
        return stores.erased(message.user_id)
    return stores.erased(event_subject(message.body))  # a message of an earlier version


def as_kept(message: DeliveryMessage, stores: Stores) -> DeliveryMessage:
    """The message as a dead letter keeps it: without the data of a person erased since
    it was made (a dead letter is kept 14 days, and may be redriven). A message that
    carries no body holds no one's data."""
    if message.body is not None and _erased(message, stores):
        return replace(message, body=stripped_event(message.body))
    return message


def _record_lost(
    delivery: Delivery,
    upto: int,
    last: int,
    deliveries: Deliveries,
    log: Attempts,
    now: datetime,
) -> bool:
    """Attempts after those recorded, up to number `upto`, recorded as their workers
    left them: failed, the next try due now (the last one: dead). False when a re-send
    replaced this send meanwhile."""
    for intento in range(delivery.intentos + 1, upto + 1):
        final = intento == last
        log.add(
            delivery.webhook_id,
            Attempt(
                # Each just before the next, so the list keeps them in order.
                id=position(now - timedelta(microseconds=upto + 1 - intento)),
                event_id=delivery.event_id,
                type=delivery.type,
                intento=intento,
                status_code=None,
                error=WORKER_STOPPED,
                estado=FAILED if final else RETRYING,
                timestamp=to_iso(now),
                duracion_ms=0,
                siguiente_intento=None if final else to_iso(now),
            ),
            now,
        )
    estado = FAILED if upto == last else PENDING
    return deliveries.attempted(delivery, upto, estado, now, None if upto == last else to_iso(now))


def _attempt(
    delivery: Delivery,
    attempt: int,
    sent: Sent,
    decision: Decision,
    now: datetime,
    siguiente: str | None,
) -> Attempt:
    return Attempt(
        id=position(now),
        event_id=delivery.event_id,
        type=delivery.type,
        intento=attempt,
        status_code=sent.status,
        error=sent.error,
        estado=RETRYING if decision.next is Next.RETRY else decision.estado,
        timestamp=to_iso(now),
        duracion_ms=sent.duration_ms,
        siguiente_intento=siguiente,
    )


# One attempt: (url, local targets allowed, headers, body) -> what came back
# (webhook_delivery.sender.deliver: the url's host looked up and checked, then the POST).
Deliver = Callable[[str, bool, dict[str, str], bytes], Sent]


class Secrets(Protocol):
    """The secrets at rest (common.webhooks.vault): opened only here, to sign."""

    def open(self, webhook_id: int, stored: str) -> str: ...


def signed_attempt(
    endpoint: Endpoint,
    delivery: Delivery,
    now: datetime,
    local: bool,
    deliver: Deliver,
    vault: Secrets,
) -> Sent:
    """The delivery's body POSTed to the endpoint, signed with each secret that signs
    now (decrypted for this, and held no longer); a target that is no longer allowed
    (its name resolves elsewhere now) is not contacted, and counts as a failed attempt."""
    body = delivery.body.encode("utf-8")
    timestamp = int(now.replace(tzinfo=UTC).timestamp())
    secrets = [vault.open(endpoint.id, stored) for stored in endpoint.signing_secrets(now)]
    headers = signatures.headers(secrets, delivery.event_id, timestamp, body)
    return deliver(endpoint.url, local, headers, body)
