"""Tracking's rules as plain functions (docs/api.md#tracking): what a tracking event is,
which events move a shipment and how, the public code, and what the public may see.

Forward only: each state has a rank, and an event moves a shipment's `estadoSeguimiento`
only to a rank at least as high, only if its `fecha` is not older than the newest
event's, and never once it is delivered or returned; every event is kept whatever it
moved. The contract's `status` follows the tracking state; a PATCH of the status sets the
tracking state to the same (`patched`). The clock is a parameter (`now`).
"""

import secrets
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from common.orders.records import SHIPMENT_DELIVERED, Incident, Shipment, TrackingEvent
from common.platform.clock import to_iso
from common.platform.errors import NotFound
from common.platform.validation import Checker

RANKS = {
    "CREADO": 0,
    "ASIGNADO": 1,
    "EN_RUTA": 2,
    "EN_REPARTO": 3,
    "INTENTO_FALLIDO": 3,
    "ENTREGADO": 4,
    "DEVUELTO": 4,
}
INCIDENT = "INCIDENCIA"
# What an event may say: every state but the first, or an incident (which moves no rank).
EVENT_STATES = (*(state for state, rank in RANKS.items() if rank > 0), INCIDENT)
# Brought back by its carrier: a shipment with lines then opens its return (shipping.service.move).
RETURNED = "DEVUELTO"
FINAL = ("ENTREGADO", RETURNED)
# The contract's status each tracking state puts a shipment in.
STATUS_OF = {
    "CREADO": "CREADO",
    "ASIGNADO": "ASIGNADO",
    "EN_RUTA": "EN_RUTA",
    "EN_REPARTO": "EN_RUTA",
    "INTENTO_FALLIDO": "EN_RUTA",
    "DEVUELTO": "EN_RUTA",
    "ENTREGADO": SHIPMENT_DELIVERED,
}
MAX_UBICACION = 80
MAX_DETALLE = 500
# An external id: what a carrier's webhook-id may be (Standard Webhooks: a short string).
MAX_ID_EXTERNO = 255

# The public code: 16 characters of Crockford's base32 (no I, L, O, U: read aloud or off
# a label without mistakes), 80 random bits.
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 16
# What an unknown code is looked up as when it could never be a code (too long, other
# characters): a code of the same length no shipment has (I is not in the alphabet), so
# that every unknown code costs the same one read and answers alike.
NO_CODE = "I" * CODE_LENGTH


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def lookup_code(raw: str) -> str:
    """The code to look up for what a client sent: itself if it could be one, else NO_CODE."""
    if len(raw) == CODE_LENGTH and all(char in CODE_ALPHABET for char in raw):
        return raw
    return NO_CODE


def unknown_code() -> NotFound:
    """One answer for every code no shipment has, whatever it is (never echoed)."""
    return NotFound("SHIPMENT_NOT_FOUND", "No shipment has this tracking code")


def not_carried() -> NotFound:
    """A carrier's event for a shipment it does not carry (or none): as unknown to it as a
    shipment that does not exist."""
    return NotFound("SHIPMENT_NOT_FOUND", "No shipment of this carrier has that reference")


def parse_reference(body: dict) -> tuple[str | None, str | None]:
    """Which shipment a carrier's event is about: its `codigoSeguimiento`, else its
    `guiaDespecho` (a string each; one of them required)."""
    check = Checker(body)
    code = check.text("codigoSeguimiento", required=False, max_length=100)
    guide = check.text("guiaDespecho", required=False, max_length=100) if code is None else None
    if code is None and guide is None and not check.details:
        check.fail("codigoSeguimiento", "or guiaDespecho is required")
    check.done()
    return code, guide


@dataclass(frozen=True, kw_only=True)
class NewEvent:
    """A tracking event as a client sent it, checked; `fecha` in the platform's format."""

    estado: str
    fecha: str
    ubicacion: str | None
    detalle: str | None
    id_externo: str | None


def parse_fecha(check: Checker, field: str, now: datetime) -> str:
    """An ISO-8601 instant (with an offset, or UTC without one) in the platform's format;
    now when absent."""
    raw = check.body.get(field)
    if raw is None:
        return to_iso(now)
    try:
        if not isinstance(raw, str) or len(raw) > 40:
            raise ValueError(raw)
        moment = datetime.fromisoformat(raw)
        if moment.tzinfo is not None:  # in UTC; the year 1's first hours east of it are not
            moment = moment.astimezone(UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):
        check.fail(field, "must be an ISO-8601 date and time, e.g. 2026-12-01T10:00:00Z")
        return to_iso(now)
    return to_iso(moment)


def parse_event(body: dict, now: datetime, id_externo: str | None = None) -> NewEvent:
    """The body of an operator's event, or a carrier's (whose external id is its
    webhook-id, `id_externo`, not a field)."""
    check = Checker(body)
    estado = check.choice("estado", EVENT_STATES)
    fecha = parse_fecha(check, "fecha", now)
    ubicacion = check.text("ubicacion", required=False, max_length=MAX_UBICACION)
    detalle = check.text("detalle", required=False, max_length=MAX_DETALLE)
    if id_externo is None:
        id_externo = check.text("idExterno", required=False, max_length=MAX_ID_EXTERNO)
        if id_externo is not None and not id_externo.strip():
            check.fail("idExterno", "must not be blank")
    elif len(id_externo) > MAX_ID_EXTERNO:  # a carrier's webhook-id: part of the event's key
        check.fail("webhook-id", f"must be at most {MAX_ID_EXTERNO} characters")
    check.done()
    return NewEvent(
        estado=estado, fecha=fecha, ubicacion=ubicacion, detalle=detalle, id_externo=id_externo
    )


def event_of(new: NewEvent, event_id: int, shipment_id: int, now: datetime) -> TrackingEvent:
    return TrackingEvent(
        id=event_id,
        estado=new.estado,
        fecha=new.fecha,
        ubicacion=new.ubicacion,
        detalle=new.detalle,
        id_externo=new.id_externo,
        registrado_en=to_iso(now),
        envio_id=shipment_id,
    )


@dataclass(frozen=True)
class Step:
    """What one change does to a shipment: its new status (None: kept), tracking state
    (None: kept), newest event's fecha and incident (None: kept). The one shape of every
    change, by PATCH or by event (shipping.service.move)."""

    status: str | None = None
    estado: str | None = None
    newest: str | None = None
    incident: Incident | None = None
    # When the shipment's units left its warehouse (its first EN_RUTA or ENTREGADO, for a
    # shipment with lines: shipping.service.move), set with the status that took them.
    salida: str | None = None


def patched(status: str) -> Step:
    """A PATCH of the status: the contract's rule, the tracking state set to the same."""
    return Step(status=status, estado=status)


def after_event(shipment: Shipment, event: TrackingEvent) -> Step:
    """What an event does to a shipment as it is (forward only; every event is kept)."""
    newest = shipment.ultimo_evento_en
    latest = newest is None or event.fecha >= newest
    step = Step(newest=event.fecha if latest else None)
    if event.estado == INCIDENT:
        current = shipment.incidencia
        if current is None or event.fecha >= current.fecha:
            step = replace(step, incident=Incident(event.detalle, event.fecha))
        return step
    estado = shipment.estado_seguimiento or shipment.status
    moves = latest and estado not in FINAL and RANKS[event.estado] >= RANKS.get(estado, 0)
    if not moves:
        return step
    status = STATUS_OF[event.estado]
    return replace(
        step,
        estado=event.estado if event.estado != estado else None,
        status=status if status != shipment.status else None,
    )


def applied(shipment: Shipment, step: Step) -> Shipment:
    """The shipment as a step leaves it."""
    changes: dict[str, Any] = {}
    if step.status is not None:
        changes["status"] = step.status
    if step.estado is not None:
        changes["estado_seguimiento"] = step.estado
    if step.newest is not None:
        changes["ultimo_evento_en"] = step.newest
    if step.incident is not None:
        changes["incidencia_detalle"] = step.incident.detalle
        changes["incidencia_fecha"] = step.incident.fecha
    if step.salida is not None:
        changes["salida"] = step.salida
    return replace(shipment, **changes) if changes else shipment


def ordered(events: list[TrackingEvent]) -> list[TrackingEvent]:
    """Oldest `fecha` first; events of one instant in the order they were recorded."""
    return sorted(events, key=lambda event: (event.fecha, event.registrado_en, event.id))


def public_view(shipment: Shipment, events: list[TrackingEvent]) -> dict:
    """What anyone with the code sees, and nothing else: no ids, no destination, no names,
    no words of the carrier's (`detalle`)."""
    return {
        "codigoSeguimiento": shipment.codigo_seguimiento,
        "estadoSeguimiento": shipment.estado_seguimiento,
        "status": shipment.status,
        "tipoEnvio": shipment.tipo_envio,
        "transportista": shipment.transportista,
        "fechaEstimadaEntrega": shipment.fecha_estimada_entrega,
        "atrasado": shipment.atrasado,
        "eventos": [
            {"estado": event.estado, "fecha": event.fecha, "ubicacion": event.ubicacion}
            for event in ordered(events)
        ],
    }
