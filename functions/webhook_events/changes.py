"""What a committed change makes, as plain functions (docs/api.md#webhooks): an order or a
shipment created (`*.creado`), its status changed (`*.estado`, with `statusAnterior`), a
tracking event recorded for a shipment (`envio.evento`, the event as `data.evento`), a
shipment marked late (`envio.atrasado`), a return opened or moved (`devolucion.creada`,
`devolucion.estado`), a product's stock going below its threshold
(`inventario.stock_bajo`), a person's data erased (`usuario.eliminado`, when the erasure's
request becomes done); any other change, none. `data` is the item as the API shows it
(the erased person's userId alone). One change may make several (an event that moved its
shipment's status: `envio.estado` and `envio.evento`).

An event about a person (an order's, a shipment's) names them (`user_id`: the order's
userId, the shipment's order's): what carries it on sends it without their data once
they are erased (common.platform.personal).

An event's id is derived from the stream record it comes from, so a record delivered
again (a batch retried) makes the same event, with the same id, never a second one.
"""

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from common.http.responses import api_json
from common.platform import jsonio
from common.platform.clock import to_iso
from common.platform.personal import ERASURE_DONE, USER_ERASED
from common.stock.records import in_alert

ORDER, SHIPMENT, PRODUCT, REQUEST = "pedido", "envio", "producto", "solicitud"
RETURN = "devolucion"


@dataclass(frozen=True)
class RequestState:
    """A rights request's item as its stream shows it: whose, and an erasure's progress."""

    user_id: int | None
    estado: str | None


@dataclass(frozen=True)
class Change:
    """One item's committed change: its kind, the stream record's identity, when it was
    made, and the item before and after (None: it did not exist), as domain objects."""

    kind: str
    record: str
    at: datetime
    old: Any  # an Order, a Shipment, a Product or a RequestState; None: it did not exist
    new: Any


@dataclass(frozen=True)
class Event:
    id: str
    type: str
    body: str  # {"type", "timestamp", "data"}: the exact bytes every attempt sends
    user_id: int | None = None  # whom it is about (its data is theirs)


def events_of(change: Change) -> list[Event]:
    found = _what_changed(change)
    if change.kind == SHIPMENT and change.new is not None:
        found += _tracked(change.old, change.new)
    return [_event(change, kind, data, _about(change)) for kind, data in found]


def _tracked(old: Any, new: Any) -> list[tuple[str, object]]:
    """A shipment's tracking: a new last event (`envio.evento`), marked late (`envio.atrasado`)."""
    found: list[tuple[str, object]] = []
    event = new.ultimo_evento
    if event is not None and (old is None or old.ultimo_evento != event):
        shown = api_json(new)
        assert isinstance(shown, dict)  # a shipment: an object
        found.append(("envio.evento", {**shown, "evento": jsonio.loads(event)}))
    if new.atraso_avisado is not None and (old is None or old.atraso_avisado is None):
        found.append(("envio.atrasado", api_json(new)))
    return found


def _about(change: Change) -> int | None:
    """Whose data an event carries: an order's person, a shipment's order's; no one's."""
    if change.kind == ORDER:
        return int(change.new.user_id)
    if change.kind == SHIPMENT and change.new.owner_id is not None:
        return int(change.new.owner_id)
    if change.kind == RETURN:
        return int(change.new.user_id)
    return None


def _what_changed(change: Change) -> list[tuple[str, object]]:
    """The event's type and data of a change, or none for a change no event reports."""
    old, new = change.old, change.new
    if new is None:
        return []  # a delete
    if change.kind in (ORDER, SHIPMENT):
        if old is None:
            return [(f"{change.kind}.creado", api_json(new))]
        before, after = old.status, new.status
        if before != after:
            shown = api_json(new)
            assert isinstance(shown, dict)  # an order or a shipment: an object
            return [(f"{change.kind}.estado", {**shown, "statusAnterior": before})]
        return []
    if change.kind == RETURN:
        return _return_changed(old, new)
    if change.kind == PRODUCT and in_alert(new) and (old is None or not in_alert(old)):
        return [("inventario.stock_bajo", api_json(new))]
    if _erasure_done(change):
        return [(USER_ERASED, {"userId": new.user_id})]
    return []


def _return_changed(old: Any, new: Any) -> list[tuple[str, object]]:
    """A return opened (`devolucion.creada`), or its state changed (`devolucion.estado`,
    with `status` and `statusAnterior` as an order's carries them)."""
    shown = api_json(new)
    assert isinstance(shown, dict)  # a return: an object
    if old is None:
        return [("devolucion.creada", shown)]
    if old.estado != new.estado:
        return [
            ("devolucion.estado", {**shown, "status": new.estado, "statusAnterior": old.estado})
        ]
    return []


def _erasure_done(change: Change) -> bool:
    """A rights request's erasure became done (never again: it stays done)."""
    old, new = change.old, change.new
    return (
        change.kind == REQUEST
        and new.estado == ERASURE_DONE
        and new.user_id is not None
        and (old is None or old.estado != ERASURE_DONE)
    )


def _event(change: Change, kind: str, data: object, user_id: int | None) -> Event:
    digest = hashlib.sha256(f"{change.record}:{kind}".encode()).hexdigest()
    body = jsonio.dumps(
        {"type": kind, "timestamp": to_iso(change.at), "data": data}, ascii_only=False
    )
    return Event(id=f"evt_{digest[:32]}", type=kind, body=body, user_id=user_id)
