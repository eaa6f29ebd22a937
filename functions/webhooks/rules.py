"""Webhook rules as plain functions: what an operator may set on an endpoint, the events
it may subscribe to, its secrets and their rotation, and when a delivery may be sent
again (docs/api.md#webhooks). The records (an endpoint, a delivery and its states, an
attempt and its place in the list) are the layer's (common.webhooks.records): the events
and delivery functions know them too."""

import base64
import dataclasses
import math
import re
import secrets
from datetime import datetime, timedelta

from common.platform.clock import to_iso
from common.platform.errors import Conflict, NotFound, TooManyRequests
from common.platform.personal import USER_ERASED
from common.platform.validation import Checker
from common.webhooks.records import DELIVERED as DELIVERED
from common.webhooks.records import FAILED as FAILED
from common.webhooks.records import PENDING, Delivery, Endpoint, NewEndpoint, Replaced
from common.webhooks.records import position as position

EVENT_TYPES = (
    "pedido.creado",
    "pedido.estado",
    "envio.creado",
    "envio.estado",
    "envio.evento",
    "envio.atrasado",
    "inventario.stock_bajo",
    "devolucion.creada",
    "devolucion.estado",
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
    """An active endpoint whose secret is `secreto` (as stored: common.webhooks.vault)."""
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
