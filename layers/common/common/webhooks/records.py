"""Webhooks' records, as the webhooks function (the API), the events function (which
queues each event for each endpoint) and the delivery function (which tries it) all
know them: an endpoint and its secrets, what an active one subscribes to, a delivery's
states, an attempt and its place in the newest-first list (docs/api.md#webhooks). The
rules of the API's own (what an operator may set, rotations, re-sends) are the webhooks
function's (webhooks.rules)."""

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from common.platform.clock import to_iso
from common.platform.errors import NotFound, not_found

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
    # 0, then one more per re-send. The API's name for it is `envio`, from before
    # shipments (`envios`) made that word mean something else; kept for its readers.
    reenvios: int = field(default=0, metadata={"wire": "envio"})
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


def position(now: datetime, spread: int | None = None) -> int:
    """An attempt's place in the newest-first list: smaller for later attempts."""
    micros = int(now.replace(tzinfo=UTC).timestamp() * 1_000_000)  # `now` is UTC's
    jitter = secrets.randbelow(_POSITION_SPREAD) if spread is None else spread
    return (_POSITION_EPOCH_US - micros) * _POSITION_SPREAD + jitter
