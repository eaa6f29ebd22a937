"""Webhook use cases, one function each: endpoints, their secrets, their attempts and a
re-send. Storage, the queue and the targets' guard are passed in."""

import dataclasses
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import NamedTuple, Protocol

from common.platform.clock import to_iso
from common.platform.errors import Conflict, NotFound, Unavailable, invalid_field
from common.storage.paging import Page
from common.webhooks.messages import DeliveryMessage, resend_of
from common.webhooks.records import Delivery, Endpoint, NewEndpoint, Replaced
from common.webhooks.targets import Refused
from webhooks import rules


class Endpoints(Protocol):
    def next_id(self) -> int: ...
    def get(self, ident: int) -> Endpoint: ...
    def page(self, after: int, limit: int) -> Page: ...
    def add(self, endpoint: Endpoint) -> None: ...
    def remove(self, ident: int) -> None: ...
    def rotate(self, endpoint: Endpoint, replacing: str) -> bool:
        """On the condition that its current secret is still `replacing`: else False."""


class Deliveries(Protocol):
    def get(self, webhook_id: int, event_id: str) -> Delivery | None: ...
    def resent(self, delivery: Delivery, now: datetime) -> bool: ...
    def not_resent(self, delivery: Delivery, now: datetime) -> None: ...


class Attempts(Protocol):
    def page(self, webhook_id: int, after: int, limit: int) -> Page: ...


class Queue(Protocol):
    def send(self, messages: Sequence[DeliveryMessage]) -> None: ...


class Secrets(Protocol):
    """The secrets at rest (common.webhooks.vault): encrypted for their endpoint."""

    def seal(self, webhook_id: int, secret: str) -> str: ...


class Issued(NamedTuple):
    """An endpoint and the secret just issued to it, in plain text: shown this once."""

    endpoint: Endpoint
    secreto: str


# Checks a URL is a target the platform delivers to (common.webhooks.targets.checked, with the
# deployment's rule for local targets); raises Refused saying why not.
TargetCheck = Callable[[str], object]


def create_endpoint(
    endpoints: Endpoints,
    vault: Secrets,
    fields: NewEndpoint,
    check_target: TargetCheck,
    now: datetime,
) -> Issued:
    """A new active endpoint with a new secret (stored encrypted), once its URL is a
    target: 400 naming `url` otherwise (a private address, http on AWS, a host that does
    not resolve)."""
    try:
        check_target(fields.url)
    except Refused as why:
        raise invalid_field("url", str(why)) from None
    ident, secret = endpoints.next_id(), rules.new_secret()
    endpoint = rules.new_endpoint(fields, ident, now, vault.seal(ident, secret))
    endpoints.add(endpoint)
    return Issued(endpoint, secret)


def list_endpoints(endpoints: Endpoints, after: int, limit: int) -> Page:
    return endpoints.page(after, limit)


def get_endpoint(endpoints: Endpoints, webhook_id: int) -> Endpoint:
    return endpoints.get(webhook_id)


def delete_endpoint(endpoints: Endpoints, webhook_id: int) -> None:
    """Gone at once: what was on its way to it is dropped when its turn comes."""
    endpoints.remove(webhook_id)


# Rounds of a rotation that another rotation of the same endpoint overtook.
ROTATION_ROUNDS = 5


def rotate_secret(endpoints: Endpoints, vault: Secrets, webhook_id: int, now: datetime) -> Issued:
    """A new secret; for ROTATION_WINDOW deliveries carry the replaced secret's signature
    too (each one a rotation replaced in that time), so a receiver can switch at its own
    pace. Of two rotations at once both stand: each is stored on the condition that the
    secret it replaces is still the current one, else it is made again on the newer.
    Secrets stored in plain text before encryption are encrypted as they are kept."""
    for _ in range(ROTATION_ROUNDS):
        current = endpoints.get(webhook_id)
        secret = rules.new_secret()
        endpoint = _sealed(vault, rules.rotated(current, vault.seal(webhook_id, secret), now))
        if endpoints.rotate(endpoint, current.secreto):
            return Issued(endpoint, secret)
    raise Conflict(
        "CONCURRENT_UPDATE", f"Webhook {webhook_id}'s secret kept changing while rotated; retry"
    )


def _sealed(vault: Secrets, endpoint: Endpoint) -> Endpoint:
    """Every secret of the endpoint as stored encrypted (those sealed already as they are)."""
    return dataclasses.replace(
        endpoint,
        secreto=vault.seal(endpoint.id, endpoint.secreto),
        anteriores=tuple(
            Replaced(vault.seal(endpoint.id, replaced.secreto), replaced.hasta)
            for replaced in endpoint.anteriores
        ),
    )


def attempts(endpoints: Endpoints, log: Attempts, webhook_id: int, after: int, limit: int) -> Page:
    """A page of the endpoint's attempts, newest first."""
    endpoints.get(webhook_id)  # 404 for an endpoint that is not there
    return log.page(webhook_id, after, limit)


def resend(
    endpoints: Endpoints,
    deliveries: Deliveries,
    queue: Queue,
    webhook_id: int,
    event_id: str,
    now: datetime,
) -> Delivery:
    """Send a delivered or failed event to its (active) endpoint again, with its id and
    body: a new send, tried as the first was. One left pending with no worker (stalled:
    every receive of its message died) may be sent again too."""
    rules.must_be_active(endpoints.get(webhook_id))
    delivery = deliveries.get(webhook_id, rules.known_event(event_id))
    if delivery is None:
        raise rules.unknown_event(event_id)
    rules.may_resend(delivery, now)
    if not deliveries.resent(delivery, now):
        raise Conflict("DELIVERY_IN_PROGRESS", f"Event {event_id} is already being sent again")
    message = resend_of(delivery)
    try:
        queue.send([message])
    except Exception:
        # Back as it was: a re-send that never left must not look under way for ever.
        deliveries.not_resent(delivery, now)
        raise Unavailable(
            "WEBHOOK_QUEUE_UNAVAILABLE",
            "The delivery queue did not take the event; retry the re-send later",
            retry_after_seconds=5,
        ) from None
    return dataclasses.replace(
        delivery,
        estado=rules.PENDING,
        reenvios=message.reenvios,
        intentos=0,
        actualizado_en=to_iso(now),
        siguiente_intento=to_iso(now),
    )


# What a dead letter's redrive did with it (redrive); each but the last takes it off the
# dead-letter queue.
SENT_AGAIN, SENT_SINCE, NOTHING_TO_SEND, NOT_NOW = (
    "sent again",
    "sent again since, or delivered",
    "nothing to send to",
    "kept: not now",
)


def redrive(
    endpoints: Endpoints,
    deliveries: Deliveries,
    queue: Queue,
    dead: DeliveryMessage,
    now: datetime,
) -> str:
    """A dead letter (the message of a delivery given up) sent again, as a re-send of its
    event would (`make redrive-webhooks`); what came of it, one of the outcomes above. A
    send newer than the dead one (a re-send since), or a delivery that is no longer
    dead, is not sent again; an endpoint deleted or turned off has nothing to send to."""
    delivery = deliveries.get(dead.webhook_id, dead.event_id)
    if delivery is None or delivery.reenvios != dead.reenvios or delivery.estado == rules.DELIVERED:
        return SENT_SINCE
    try:
        resend(endpoints, deliveries, queue, dead.webhook_id, dead.event_id, now)
    except NotFound:
        return NOTHING_TO_SEND
    except Conflict as refused:
        # Still PENDIENTE: not stalled yet (it will be, with no message left to try it).
        return NOTHING_TO_SEND if refused.code == "WEBHOOK_INACTIVE" else NOT_NOW
    except Unavailable:
        return NOT_NOW
    return SENT_AGAIN
