"""Shipping use cases, one function each; the repository, whose an order is, and the
instant are passed in.

Every change of a shipment, whatever makes it (a PATCH of its status, an operator's
tracking event, a carrier's), goes through `move`: the one place where what follows a
status change belongs (docs/api.md#tracking): for a shipment with lines of its order,
its units leaving its warehouse and its order counting them (docs/api.md#shipments-of-parts).
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from common.identity import user_ids
from common.identity.callers import Caller
from common.orders import records
from common.orders.records import TrackingEvent
from common.platform import history
from common.platform.clock import to_iso, utcnow
from common.platform.errors import Conflict, Invalid, NotFound, Unavailable
from common.platform.history import Entry
from common.stock.client import InventoryUnavailable, NotHeld
from common.storage.paging import Page
from shipping import access, rules, tracking
from shipping import carriers as carriers_rules
from shipping import parts as parts_rules
from shipping.carriers import Carrier
from shipping.parts import OrderParts
from shipping.repository import ChangeOf, Counted, Decide, Moved
from shipping.rules import Shipment
from shipping.tracking import NewEvent

# The late check reads at most this many shipments past their estimate per shard and run.
LATE_BATCH = 100


class PartsStock(Protocol):
    """The inventory's take-out of a shipment's units (common.stock.client.StockClient)."""

    def take_part(
        self,
        pedido_id: int,
        envio_id: int,
        bodega_id: int,
        parts: dict[int, int],
        request_id: str | None = None,
    ) -> tuple[bool, bool]: ...


class OrderCounts(Protocol):
    """An order's parts in the orders' table (shipping.parts_repository)."""

    def read(self, pedido_id: int) -> OrderParts | None: ...
    def prepare(self, parts: OrderParts) -> None: ...
    def counted(self, parts: OrderParts, shipment: Shipment, sign: int = 1) -> Counted: ...
    def departed(self, shipment: Shipment, now: str, whole: bool) -> None: ...
    def delivered(self, shipment: Shipment, now: str) -> None: ...


@dataclass(frozen=True)
class Parts:
    """What a shipment with lines of its order moves beside itself: its units in the
    inventory and its order's counts; `erased`: whether a userId's person was erased."""

    stock: PartsStock
    orders: OrderCounts
    erased: Callable[[int], bool] = lambda _user_id: False
    # Where a shipment brought back by its carrier opens its return (shipping.carrier_returns).
    returns: "CarrierReturns | None" = None


class CarrierReturns(Protocol):
    def open(self, shipment: Shipment) -> None:
        """The return of a shipment's units, opened once per shipment (docs/api.md#returns)."""


class Shipments(Protocol):
    """What the use cases need of shipment storage (DynamoDB, or a fake in tests)."""

    def next_id(self) -> int: ...
    def get(self, shipment_id: int) -> Shipment: ...
    def page(
        self,
        after: int,
        limit: int,
        status: str | None = None,
        pedido_id: int | None = None,
        owner_id: int | None = None,
    ) -> Page: ...
    def add(self, shipment: Shipment) -> Shipment:
        """Stored, with the tracking code it was given; returned as stored."""

    def add_part(self, plan: Callable[[], tuple[Shipment, Counted]]) -> Shipment:
        """Stored in one transaction with what it adds to its order's counts."""

    def delete(self, shipment_id: int, uncount: Callable[[Shipment], Counted | None]) -> None:
        """Gone while CREADO or ASIGNADO (409 SHIPMENT_ON_ITS_WAY later), its order's
        counts given back in the same transaction."""

    def move(
        self,
        shipment_id: int,
        decide: Decide,
        change_of: ChangeOf,
        event: TrackingEvent | None = None,
        seen: Shipment | None = None,
    ) -> Moved:
        """The change `decide` says, made from the shipment as it is (with `event`,
        recorded with it; a repeat of its external id: the first, nothing written);
        `seen`: the shipment as the caller just read it."""

    def history(self, shipment_id: int) -> tuple[Shipment, list[Entry]]: ...
    def next_event_id(self) -> int: ...
    def events(self, shipment_id: int) -> list[TrackingEvent]: ...
    def by_code(self, code: str) -> Shipment | None: ...
    def due(self, now: str, limit: int) -> list[int]: ...
    def checked(self, shipment_id: int, now: str) -> bool: ...


class Lookups(Protocol):
    """The public look-ups' limit per client address (common.identity.window_repository)."""

    def take(self, address: str) -> None: ...


@dataclass(frozen=True)
class Signed:
    """A request a carrier signed: its body's bytes exactly as sent, the signature's
    headers (lower-case names), and how its body is read once the signature holds (the
    HTTP edge's JSON object reader: 400 for anything else)."""

    body: bytes
    headers: dict[str, str]
    parse: Callable[[bytes], dict]


# An order's id -> its customer's userId (None: no such order); raises Unavailable.
OwnerOf = Callable[[int], int | None]


def create_shipment(
    shipments: Shipments,
    owner_of: OwnerOf,
    new_shipment: rules.NewShipment,
    now: datetime,
    parts: Parts | None = None,
) -> Shipment:
    """A shipment of a checked new shipment (rules.parse_shipment), recording whose order it
    fulfils; with its tracking code. With lines of its order (`parts` given), made as
    create_part says."""
    if new_shipment.lineas and parts is not None:
        return create_part(shipments, parts, new_shipment, now)
    owner = owner_of(new_shipment.pedido_id)
    shipment = rules.created_shipment(new_shipment, shipments.next_id(), now, owner)
    return shipments.add(shipment)


def _order_parts(parts: Parts, new_shipment: rules.NewShipment) -> OrderParts:
    found = parts.orders.read(new_shipment.pedido_id)
    if found is None:
        raise Invalid("ORDER_NOT_FOUND", f"Order {new_shipment.pedido_id} does not exist")
    unknown = parts_rules.unknown_lines(found.order, new_shipment.lineas)
    if unknown is not None:
        raise unknown
    return found


def create_part(
    shipments: Shipments, parts: Parts, new_shipment: rules.NewShipment, now: datetime
) -> Shipment:
    """A shipment of part of an order (docs/api.md#shipments-of-parts): its order must
    exist (400 ORDER_NOT_FOUND) and ship (409 ORDER_NOT_SHIPPABLE); its units, from one
    warehouse, are counted on its order in the shipment's own transaction, on the
    condition that no line puts more units on shipments than it holds there (409
    EXCEEDS_PENDING, SEVERAL_WAREHOUSES)."""
    first = _order_parts(parts, new_shipment)
    parts_rules.warehouse_of(first, new_shipment.lineas, new_shipment.bodega_id)
    owner = first.order.user_id
    if parts.erased(owner):
        raise user_ids.erased(owner)
    parts.orders.prepare(first)
    shipment_id = shipments.next_id()
    read = [first if first.counts_stored else None]

    def plan() -> tuple[Shipment, Counted]:
        found = read.pop() if read else None
        found = found or _order_parts(parts, new_shipment)
        bodega = parts_rules.warehouse_of(found, new_shipment.lineas, new_shipment.bodega_id)
        fields = replace(new_shipment, bodega_id=bodega)
        shipment = rules.created_shipment(fields, shipment_id, now, owner)
        return shipment, parts.orders.counted(found, shipment)

    return shipments.add_part(plan)


def delete_shipment(
    shipments: Shipments, caller: Caller, shipment_id: int, parts: Parts | None = None
) -> None:
    """A shipment deleted while CREADO or ASIGNADO (docs/api.md#shipments-of-parts): its
    units are again not on a shipment, in the same transaction; later 409."""
    access.may_delete(caller)

    def uncount(shipment: Shipment) -> Counted | None:
        if not shipment.lineas or parts is None:
            return None
        found = parts.orders.read(shipment.pedido_id)
        if found is None:
            return None
        return parts.orders.counted(found, shipment, -1)

    shipments.delete(shipment_id, uncount)


def get_shipment(shipments: Shipments, caller: Caller, shipment_id: int) -> Shipment:
    """The shipment; one of someone else's orders is, to a customer, as unknown as an id
    no shipment has."""
    shipment = shipments.get(shipment_id)
    if not access.sees(caller, shipment):
        raise rules.unknown_shipment(shipment_id)
    return shipment


def list_shipments(
    shipments: Shipments,
    caller: Caller,
    after: int,
    limit: int,
    raw_status: str | None,
    raw_pedido_id: str | None,
) -> Page:
    """A page of the shipments after id `after` the caller may see: all, of one status,
    of one order."""
    status, pedido_id = rules.parse_filters(raw_status, raw_pedido_id)
    return shipments.page(
        after, limit, status=status, pedido_id=pedido_id, owner_id=access.owner_filter(caller)
    )


def move(
    shipments: Shipments,
    shipment_id: int,
    decide: Decide,
    change_of: ChangeOf,
    event: TrackingEvent | None = None,
    seen: Shipment | None = None,
    parts: Parts | None = None,
    now: datetime | None = None,
) -> Moved:
    """The one path of every change of a shipment (docs/api.md#tracking): a PATCH of its
    status and a tracking event alike are written here, each status change with its
    history entry in the same write. What must follow a status change, whoever made it,
    follows from here (`moved.before.status` -> `moved.after.status`).

    A shipment with lines (docs/api.md#shipments-of-parts): its first move to EN_RUTA or
    ENTREGADO first has its units taken out of its warehouse (keyed by the shipment in
    the inventory: asked again, nothing more is taken; refused, the shipment does not
    move), then is written with `salida` set, so no later move takes them again; then its
    order counts them (once per shipment, keyed there too). A move that finds the
    shipment on its way already, a same-state PATCH too, counts again what a crash may
    have left uncounted, which adds nothing when it was counted."""
    if parts is None:
        return shipments.move(shipment_id, decide, change_of, event, seen)
    at = to_iso(now or utcnow())
    whole = [False]

    def deciding(shipment: Shipment) -> tracking.Step | None:
        step = decide(shipment)
        if step is None or not shipment.lineas:
            return step
        leaves = step.status in parts_rules.ON_ITS_WAY and shipment.salida is None
        if leaves:
            whole[0] = _take_out(parts, shipment)
        # Brought back by its carrier: its return opened before the shipment says so, so
        # a failure refuses the event (retried) rather than losing the return.
        if step.estado == tracking.RETURNED != shipment.estado_seguimiento and parts.returns:
            parts.returns.open(shipment)
        return replace(step, salida=at) if leaves else step

    moved = shipments.move(shipment_id, deciding, change_of, event, seen)
    _follow(parts, moved.after, at, whole[0])
    return moved


def _take_out(parts: Parts, shipment: Shipment) -> bool:
    """The shipment's units out of its warehouse; True when its order's own take-out had
    taken them all already."""
    assert shipment.bodega_id is not None  # a shipment with lines has its warehouse
    units = {line.linea: line.cantidad for line in shipment.lineas}
    try:
        _, whole = parts.stock.take_part(shipment.pedido_id, shipment.id, shipment.bodega_id, units)
    except InventoryUnavailable as exc:
        raise Unavailable(
            "INVENTORY_UNAVAILABLE",
            f"The inventory service is unavailable; shipment {shipment.id} did not move",
            retry_after_seconds=exc.retry_after_seconds,
        ) from None
    except NotHeld:
        raise Conflict(
            "ORDER_NOT_SHIPPABLE",
            f"Order {shipment.pedido_id} no longer holds the units of shipment {shipment.id}",
        ) from None
    return whole


def _follow(parts: Parts, shipment: Shipment, at: str, whole: bool) -> None:
    """The order counts a shipment on its way, and delivered (each once)."""
    if not shipment.lineas or shipment.salida is None:
        return
    if shipment.status in parts_rules.ON_ITS_WAY:
        parts.orders.departed(shipment, at, whole)
    if shipment.status == parts_rules.DELIVERED:
        parts.orders.delivered(shipment, at)


def _entry(now: datetime, rol: str) -> ChangeOf:
    return lambda status: Entry(status, to_iso(now), rol)


def change_status(
    shipments: Shipments,
    caller: Caller,
    shipment_id: int,
    raw_status: str | None,
    now: datetime,
    parts: Parts | None = None,
) -> Shipment:
    """Any of the four states may follow any other (docs/api.md#shipping), the tracking
    state set to the same; each change is in the shipment's history (docs/api.md#history),
    a same-state PATCH is not and changes nothing."""
    status = rules.parse_status(raw_status)

    def decide(shipment: Shipment) -> tracking.Step | None:
        return tracking.patched(status) if shipment.status != status else None

    return move(
        shipments, shipment_id, decide, _entry(now, caller.role), parts=parts, now=now
    ).after


def shipment_history(shipments: Shipments, caller: Caller, shipment_id: int) -> list[Entry]:
    """The shipment's history (docs/api.md#history); one of someone else's orders is, to a
    customer, as unknown as an id no shipment has. Only operators create shipments."""
    shipment, changes = shipments.history(shipment_id)
    if not access.sees(caller, shipment):
        raise rules.unknown_shipment(shipment_id)
    return records.shipment_history(shipment, changes)


def record_event(
    shipments: Shipments,
    shipment_id: int,
    new: NewEvent,
    now: datetime,
    rol: str,
    seen: Shipment | None = None,
    parts: Parts | None = None,
) -> Moved:
    """A tracking event recorded and what it does to its shipment (forward only:
    shipping.tracking.after_event), in one write; a repeat of its external id answers
    the first event and records nothing. `rol`: who moved the shipment, in its history."""
    event = tracking.event_of(new, shipments.next_event_id(), shipment_id, now)
    return move(
        shipments,
        shipment_id,
        lambda shipment: tracking.after_event(shipment, event),
        _entry(now, rol),
        event,
        seen,
        parts,
        now,
    )


def operator_event(
    shipments: Shipments,
    caller: Caller,
    shipment_id: int,
    new: NewEvent,
    now: datetime,
    parts: Parts | None = None,
) -> Moved:
    access.may_record_events(caller)
    return record_event(shipments, shipment_id, new, now, caller.role, parts=parts)


def shipment_events(shipments: Shipments, caller: Caller, shipment_id: int) -> list[TrackingEvent]:
    """The shipment's events, oldest `fecha` first; a customer's own shipments only (any
    other is as unknown as an id no shipment has)."""
    get_shipment(shipments, caller, shipment_id)
    return tracking.ordered(shipments.events(shipment_id))


def public_tracking(shipments: Shipments, lookups: Lookups, address: str, raw_code: str) -> dict:
    """What anyone holding a tracking code may see (docs/api.md#tracking). Every look-up
    counts against its address, unknown codes too, and every unknown code is looked up the
    same way and answered alike."""
    lookups.take(address)
    shipment = shipments.by_code(tracking.lookup_code(raw_code))
    if shipment is None:
        raise tracking.unknown_code()
    return tracking.public_view(shipment, shipments.events(shipment.id))


def check_late(shipments: Shipments, now: datetime) -> int:
    """The shipments whose estimate passed and are not delivered, marked late once each (their
    `envio.atrasado`); those delivered leave the check. Run on a schedule, every minute;
    returns how many it marked."""
    at = to_iso(now)
    return sum(shipments.checked(shipment_id, at) for shipment_id in shipments.due(at, LATE_BATCH))


class Carriers(Protocol):
    """The carriers (shipping.carriers_repository)."""

    def next_id(self) -> int: ...
    def add(self, carrier: Carrier, secret: str) -> None:
        """Stored with its secret sealed; 409 DUPLICATE_CODE when its code is taken."""

    def signing(self, codigo: str) -> tuple[Carrier, str] | None:
        """The carrier of a code and its secret, opened; None: no such carrier."""


def create_carrier(carriers: Carriers, new: carriers_rules.NewCarrier, now: datetime) -> Carrier:
    """A carrier with a new secret, shown in this answer only."""
    secret = carriers_rules.new_secret()
    carrier = Carrier(
        codigo=new.codigo, nombre=new.nombre, id=carriers.next_id(), creado_en=to_iso(now)
    )
    carriers.add(carrier, secret)
    return replace(carrier, secreto=secret)


def carrier_event(
    carriers: Carriers,
    shipments: Shipments,
    codigo: str,
    signed: Signed,
    now: datetime,
    parts: Parts | None = None,
) -> Moved:
    """An event a carrier pushed (docs/api.md#carriers): first its signature, checked with
    its secret (401 for anything else, an unknown carrier too), then the body; then its
    shipment, found by tracking code or dispatch guide among the carrier's own (another
    carrier's, or none: 404). Recorded as an operator's event is, its webhook-id its
    external id; the platform moved the shipment (`system` in its history)."""
    found = carriers.signing(codigo)
    if found is None:
        raise carriers_rules.unsigned()
    carrier, secret = found
    webhook_id = carriers_rules.verified(secret, signed.body, signed.headers)
    body = signed.parse(signed.body)
    new = tracking.parse_event(body, now, id_externo=webhook_id)
    shipment = _carried(shipments, carrier, body)
    return record_event(
        shipments, shipment.id, new, now, history.SYSTEM, seen=shipment, parts=parts
    )


def _carried(shipments: Shipments, carrier: Carrier, body: dict) -> Shipment:
    """The shipment an event names (tracking.parse_reference), if it is the carrier's."""
    code, guide = tracking.parse_reference(body)
    shipment: Shipment | None
    if code is not None:
        shipment = shipments.by_code(tracking.lookup_code(code))
    else:
        assert guide is not None  # parse_reference gives one or the other
        ident = rules.id_of_guide(guide)
        shipment = _or_none(shipments, ident) if ident is not None else None
        if shipment is not None and shipment.guia_despecho != guide:
            shipment = None
    if shipment is None or not carriers_rules.carries(carrier, shipment):
        raise tracking.not_carried()
    return shipment


def _or_none(shipments: Shipments, shipment_id: int) -> Shipment | None:
    try:
        return shipments.get(shipment_id)
    except NotFound:
        return None
