"""Webhook rules as plain functions: what an endpoint is, the events it may subscribe to,
its secrets and their rotation, a delivery's states, and where an attempt sits in the
newest-first list of attempts (docs/api.md#webhooks)."""

import base64
import dataclasses
import math
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from common.clock import to_iso
from common.errors import Conflict, NotFound, TooManyRequests, not_found
from common.personal import USER_ERASED
from common.validation import Checker

EVENT_TYPES = (
    "pedido.creado",
    "pedido.estado",
    "envio.creado",
    "envio.estado",
    "inventario.stock_bajo",
    USER_ERASED,
)
# Standard Webhooks' secrets: "whsec_" and the base64 of 24 to 64 random bytes.
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
# A rotated secret still signs (beside the new one) this long.
ROTATION_WINDOW = timedelta(hours=24)
# At most this many secrets sign a delivery at once (the current one and those rotations
# replaced within ROTATION_WINDOW): a rotation past it waits until the oldest stops.
MAX_SIGNING_SECRETS = 10
MAX_URL = 2048
# A delivery's states: being tried (or waiting for its next try), delivered, or given up
# (every try failed: a dead letter; or the endpoint answered 410).
PENDING, DELIVERED, FAILED = "PENDIENTE", "ENTREGADO", "FALLIDO"
# An attempt ends delivered (DELIVERED), failed with a next try due (RETRYING, at its
# `siguienteIntento`), or failed for good (FAILED: the last, or a 410): never pending.
RETRYING = "REINTENTO"
# An attempt whose worker stopped before it ended (the function died or timed out): its
# message came back when its visibility ran out, and the next worker records it so.
WORKER_STOPPED = "the attempt's worker stopped before it ended; its message came back"
# A delivery still PENDIENTE this long after its next try was due has no worker left
# (every receive of its message died): it may be sent again.
STALLED_AFTER = timedelta(minutes=15)
# Attempts are listed newest first: each one's place in the list is a number that falls
# as time goes on (microseconds before this instant), three random digits after it so
# that two at the same microsecond differ. 10^16 us after 1970 is the year 2286.
_POSITION_EPOCH_US = 10**16
_POSITION_SPREAD = 1000


@dataclass(frozen=True, kw_only=True)
class NewEndpoint:
    """What an operator sets on an endpoint."""

    url: str
    eventos: tuple[str, ...]


@dataclass(frozen=True)
class Replaced:
    """A secret a rotation replaced, and until when it still signs."""

    secreto: str = field(repr=False)
    hasta: str


@dataclass(frozen=True, kw_only=True)
class Endpoint(NewEndpoint):
    """A subscribed endpoint; its secrets are never shown but once (shown_once)."""

    id: int
    activo: bool
    creado_en: str
    secreto: str = field(repr=False, metadata={"internal": True})
    # The secrets rotations replaced, newest first, each with until when it signs.
    anteriores: tuple[Replaced, ...] = field(default=(), repr=False, metadata={"internal": True})

    def signing_secrets(self, now: datetime) -> list[str]:
        """The secrets a delivery is signed with now: the current one, and each one a
        rotation replaced while its window lasts."""
        return [self.secreto, *(replaced.secreto for replaced in self.still_signing(now))]

    def still_signing(self, now: datetime) -> tuple[Replaced, ...]:
        moment = to_iso(now)
        return tuple(replaced for replaced in self.anteriores if moment < replaced.hasta)


@dataclass(frozen=True, kw_only=True)
class Subscription:
    """What the events need of an active endpoint: which it is, what it subscribed to,
    and since when (its `creadoEn`)."""

    id: int
    eventos: tuple[str, ...]
    creado_en: str

    def receives(self, event_type: str, changed_at: datetime) -> bool:
        """Whether an event of `event_type` made by a change at `changed_at` is this
        endpoint's: subscribed to, and made from the second the endpoint was created on
        (a stream record's time is DynamoDB's, to the second: a change made just after
        the endpoint may carry the second before it; one made earlier is not sent)."""
        return event_type in self.eventos and to_iso(changed_at)[:19] >= self.creado_en[:19]


@dataclass(frozen=True, kw_only=True)
class Delivery:
    """One event on its way to one endpoint: the body sent every time, its state, and
    which send it is (a re-send counts one more; older sends' messages are then void)."""

    webhook_id: int
    event_id: str
    type: str
    body: str = field(repr=False, metadata={"internal": True})
    estado: str
    envio: int = 0
    intentos: int = 0  # of this send, recorded
    actualizado_en: str
    # When its next try is due, while PENDIENTE (None: written before it was kept).
    siguiente_intento: str | None = None
    # Whom its event is about (an order's or a shipment's person; None: no one).
    user_id: int | None = field(default=None, metadata={"internal": True})

    def stalled(self, now: datetime) -> bool:
        """PENDIENTE long past its next try (or, written before that was kept, its last
        change): no worker will take it up again."""
        due = self.siguiente_intento or self.actualizado_en
        return self.estado == PENDING and bool(due) and to_iso(now - STALLED_AFTER) > due


@dataclass(frozen=True, kw_only=True)
class Attempt:
    """One try of a delivery, as GET /api/webhooks/{id}/entregas shows it; `id` is its
    place in that list (newest first), the platform's own."""

    id: int = field(metadata={"internal": True})
    event_id: str
    type: str
    intento: int
    status_code: int | None
    error: str | None
    estado: str  # DELIVERED, RETRYING or FAILED
    timestamp: str
    duracion_ms: int
    siguiente_intento: str | None = None  # RETRYING's: when the next try is due


def unknown_webhook(webhook_id: int) -> NotFound:
    return not_found("WEBHOOK_NOT_FOUND", "Webhook", webhook_id)


# An event's id (webhook_events.changes): anything else names no event, and is not looked
# up (a DynamoDB key has limits a path segment has not).
EVENT_ID = re.compile(r"evt_[0-9a-f]{32}")


def known_event(event_id: str) -> str:
    if not EVENT_ID.fullmatch(event_id):
        raise unknown_event(event_id)
    return event_id


def unknown_event(event_id: str) -> NotFound:
    shown = event_id if len(event_id) <= 64 else event_id[:64] + "…"
    return NotFound("EVENT_NOT_FOUND", f"Event {shown} was not delivered to this webhook")


def parse_endpoint(body: dict) -> NewEndpoint:
    """The POST body: a url (its scheme and host are checked by the targets' guard) and
    a non-empty list of known event types (repeats count once)."""
    check = Checker(body)
    url = check.text("url", max_length=MAX_URL)
    eventos = _event_types(check, body.get("eventos"))
    check.done()
    return NewEndpoint(url=url, eventos=eventos)


def _event_types(check: Checker, raw: object) -> tuple[str, ...]:
    if raw is None:
        check.fail("eventos", "is required")
        return ()
    if not isinstance(raw, list) or not raw:
        check.fail("eventos", f"must be a non-empty list of {', '.join(EVENT_TYPES)}")
        return ()
    unknown = [item for item in raw if not isinstance(item, str) or item not in EVENT_TYPES]
    if unknown:
        shown = ", ".join(repr(item)[:60] for item in unknown[:5])
        check.fail("eventos", f"unknown event type {shown}: one of {', '.join(EVENT_TYPES)}")
        return ()
    return tuple(dict.fromkeys(raw))


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def new_endpoint(fields: NewEndpoint, endpoint_id: int, now: datetime, secreto: str) -> Endpoint:
    """An active endpoint whose secret is `secreto` (as stored: webhooks.vault)."""
    return Endpoint(
        id=endpoint_id,
        url=fields.url,
        eventos=fields.eventos,
        activo=True,
        creado_en=to_iso(now),
        secreto=secreto,
    )


def rotated(endpoint: Endpoint, secret: str, now: datetime) -> Endpoint:
    """`secret` the current one; the one it replaces signs beside it for ROTATION_WINDOW,
    as do those earlier rotations replaced whose windows last. TOO_MANY_ROTATIONS (429)
    when MAX_SIGNING_SECRETS would sign: until the oldest of them stops."""
    still = endpoint.still_signing(now)
    if 1 + len(still) >= MAX_SIGNING_SECRETS:
        ends = datetime.fromisoformat(min(replaced.hasta for replaced in still))
        raise TooManyRequests(
            "TOO_MANY_ROTATIONS",
            f"Webhook {endpoint.id} already has {MAX_SIGNING_SECRETS} secrets signing its "
            "deliveries (each secret a rotation replaces signs for 24 h); rotate again once "
            "the oldest stops",
            retry_after_seconds=max(1, math.ceil((ends - now).total_seconds())),
        )
    replaced = Replaced(endpoint.secreto, to_iso(now + ROTATION_WINDOW))
    return dataclasses.replace(endpoint, secreto=secret, anteriores=(replaced, *still))


def may_resend(delivery: Delivery, now: datetime) -> None:
    """Only a delivery that is over (delivered, or given up) is sent again, or one left
    pending with no worker (stalled)."""
    if delivery.estado == PENDING and not delivery.stalled(now):
        raise Conflict(
            "DELIVERY_IN_PROGRESS",
            f"Event {delivery.event_id} is still being delivered; re-send it once it is "
            "delivered or has failed",
        )


def must_be_active(endpoint: Endpoint) -> None:
    if not endpoint.activo:
        raise Conflict(
            "WEBHOOK_INACTIVE",
            f"Webhook {endpoint.id} is inactive (its endpoint answered 410 Gone); create it "
            "again to receive events",
        )


def position(now: datetime, spread: int | None = None) -> int:
    """An attempt's place in the newest-first list: smaller for later attempts."""
    micros = int(now.replace(tzinfo=UTC).timestamp() * 1_000_000)  # `now` is UTC's
    jitter = secrets.randbelow(_POSITION_SPREAD) if spread is None else spread
    return (_POSITION_EPOCH_US - micros) * _POSITION_SPREAD + jitter
