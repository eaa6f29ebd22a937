"""Webhook rules as plain functions: what an endpoint is, the events it may subscribe to,
its secrets and their rotation, a delivery's states, and where an attempt sits in the
newest-first list of attempts (docs/api.md#webhooks)."""

import base64
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from common.clock import to_iso
from common.errors import Conflict, NotFound, not_found
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
MAX_URL = 2048
# A delivery's states: being tried (or waiting for its next try), delivered, or given up
# (every try failed: a dead letter; or the endpoint answered 410).
PENDING, DELIVERED, FAILED = "PENDIENTE", "ENTREGADO", "FALLIDO"
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


@dataclass(frozen=True, kw_only=True)
class Endpoint(NewEndpoint):
    """A subscribed endpoint; its secrets are never shown but once (shown_once)."""

    id: int
    activo: bool
    creado_en: str
    secreto: str = field(repr=False, metadata={"internal": True})
    # The secret a rotation replaced, and until when it still signs.
    secreto_anterior: str | None = field(default=None, repr=False, metadata={"internal": True})
    secreto_anterior_hasta: str | None = field(default=None, metadata={"internal": True})

    def signing_secrets(self, now: datetime) -> list[str]:
        """The secrets a delivery is signed with now: the current one, and the one it
        replaced while its window lasts."""
        previous = self.secreto_anterior
        if previous and self.secreto_anterior_hasta and to_iso(now) < self.secreto_anterior_hasta:
            return [self.secreto, previous]
        return [self.secreto]


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
    intentos: int = 0
    actualizado_en: str
    # Whom its event is about (an order's or a shipment's person; None: no one).
    user_id: int | None = field(default=None, metadata={"internal": True})


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
    estado: str
    timestamp: str
    duracion_ms: int


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


def new_endpoint(fields: NewEndpoint, endpoint_id: int, now: datetime) -> Endpoint:
    return Endpoint(
        id=endpoint_id,
        url=fields.url,
        eventos=fields.eventos,
        activo=True,
        creado_en=to_iso(now),
        secreto=new_secret(),
    )


def rotated(endpoint: Endpoint, now: datetime) -> Endpoint:
    """A new secret; the one it replaces signs beside it for ROTATION_WINDOW."""
    return Endpoint(
        **{
            **vars(endpoint),
            "secreto": new_secret(),
            "secreto_anterior": endpoint.secreto,
            "secreto_anterior_hasta": to_iso(now + ROTATION_WINDOW),
        }
    )


def may_resend(delivery: Delivery) -> None:
    """Only a delivery that is over (delivered, or given up) is sent again."""
    if delivery.estado == PENDING:
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
