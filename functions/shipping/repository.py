"""Shipments and their tracking events in DynamoDB; with carriers_repository.py, the only
shipping modules that know PynamoDB.

Every change of a shipment goes through `move`: the shipment read, what the change does
decided from it as it is (a pure function: a PATCH's, or a tracking event's rules), then
one write on the condition that what the decision read is unchanged, or it is decided
again. A PATCH's write is one conditional UpdateItem that sets only what changes and
appends to the history; a tracking event's is one transaction of that update and the
event's put, on the condition that no event of its shipment has its external id yet, so
an event and what it did exist together or not at all, a repeat adds nothing, and a
write never loses another's. Recording an event costs the same whatever its shipment's
history: the event is an item of its own, and the shipment's item is bounded (its
history trimmed to its newest changes, its incident and last event one each).
"""

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from pynamodb.exceptions import DoesNotExist, PutError, TransactWriteError, UpdateError
from pynamodb.expressions.condition import Condition, size
from pynamodb.expressions.update import Action
from pynamodb.transactions import TransactWrite

from common.http.responses import api_json
from common.orders.records import TrackingEvent
from common.orders.tracking_model import event_of, key_of
from common.orders.tracking_model import item_of as event_item_of
from common.platform import history, jsonio
from common.platform.errors import Conflict
from common.platform.history import Entry
from common.platform.settings import Cloud
from common.storage import counters, shards
from common.storage import tables as storage
from common.storage.id_blocks import IdBlocks
from common.storage.paging import Page
from common.storage.repository import Repository
from shipping.model import (
    DUE,
    DUE_SHARDS,
    STATUS_SHARDS,
    ShipmentModel,
    TrackingCodeModel,
    TrackingEventModel,
)
from shipping.parts import DELETABLE, on_its_way
from shipping.rules import Shipment, unknown_shipment
from shipping.tracking import Step, applied, new_code

COUNTER = "shipments"
EVENTS_COUNTER = "shipment-events"
# A shipment's history may hold this many changes beyond those it shows before a write
# trims it: the trimming's extra write is made once per TRIM_SLACK changes, not each.
TRIM_SLACK = 20
KEPT_BEFORE_TRIM = history.KEPT_CHANGES + TRIM_SLACK
# Rounds of a change that finds its shipment changed by another since it read it; past
# them the client is told to retry (409). A carrier's burst of events for one shipment
# races with itself, so there are enough for ten at once.
MAX_ATTEMPTS = 12
# Tracking codes an environment keeps with their shipments' ids (a few hundred KB).
KNOWN_CODES = 10_000
# The events a shipment shows at most (oldest first): far more than a parcel's journey.
MAX_EVENTS = 1000


def item_of(shipment: Shipment) -> ShipmentModel:
    """The item of a shipment: its fields, its shard of the whole list and of its status,
    and its place among the shipments whose estimate is still to be checked."""
    item = storage.listed(storage.to_item(ShipmentModel, shipment))
    item.status_shard = shards.key(shipment.status, shipment.id, STATUS_SHARDS)
    item.vence = shards.key(DUE, shipment.id, DUE_SHARDS)
    if not shipment.lineas:
        item.lineas = None  # the contract's shipment: stored as before lines
    return item


@dataclass(frozen=True)
class Moved:
    """A change made: the shipment before and after it, and what it did (None: nothing,
    a PATCH to the status it has); for an event, the event as kept (the first one, for a
    repeat of its external id: then nothing was written)."""

    before: Shipment
    after: Shipment
    step: Step | None
    event: TrackingEvent | None = None
    repeated: bool = False


# What a shipment adds to its order's counts in its own transaction
# (shipping.parts_repository); a new shipment with lines and that update, planned from its
# order as it is now; a shipment's update given back when it is deleted (None: it has none).
Counted = Callable[[TransactWrite], None]
PlanPart = Callable[[], tuple[Shipment, Counted]]
Uncount = Callable[[Shipment], Counted | None]

# What a change does to a shipment as it is: a PATCH's rule or an event's (None: nothing).
Decide = Callable[[Shipment], Step | None]
# The history entry of a status change (its status, time and role).
ChangeOf = Callable[[str], Entry]


def _actions(step: Step, entry: Entry | None, shown_event: str | None) -> list[Action]:
    """The update that makes a step: only the attributes it changes, the status's shard
    moving with the status and its history entry appended in the same write."""
    m = ShipmentModel
    actions: list[Action] = []
    if step.status is not None:
        assert entry is not None  # a status change always has its entry
        actions += [m.status.set(step.status), storage.appended(m.historial, entry)]
    if step.estado is not None:
        actions.append(m.estado_seguimiento.set(step.estado))
    if step.newest is not None:
        actions.append(m.ultimo_evento_en.set(step.newest))
    if step.incident is not None:
        actions.append(m.incidencia_fecha.set(step.incident.fecha))
        detalle = step.incident.detalle
        actions.append(
            m.incidencia_detalle.set(detalle)
            if detalle is not None
            else m.incidencia_detalle.remove()
        )
    if shown_event is not None:
        actions.append(m.ultimo_evento.set(shown_event))
    if step.salida is not None:
        actions.append(m.salida.set(step.salida))
    return actions


def _as_read(shipment: Shipment) -> Condition:
    """The shipment is still as `shipment` was read, in everything a decision reads."""
    m = ShipmentModel

    def same(attribute: Any, value: str | None) -> Condition:
        return attribute == value if value is not None else attribute.does_not_exist()

    return (
        (m.status == shipment.status)
        & (
            (m.estado_seguimiento == shipment.estado_seguimiento)
            | m.estado_seguimiento.does_not_exist()
        )
        & same(m.ultimo_evento_en, shipment.ultimo_evento_en)
        & same(m.incidencia_fecha, shipment.incidencia_fecha)
        & same(m.salida, shipment.salida)
    )


class ShipmentRepository(Repository):
    def __init__(self, cloud: Cloud):
        super().__init__(
            cloud,
            ShipmentModel,
            Shipment,
            counter=COUNTER,
            unknown=unknown_shipment,
            item_of=item_of,
            other_models=(TrackingCodeModel, TrackingEventModel),
        )
        self._connection = storage.connection(cloud)
        self._event_ids = IdBlocks(lambda size: counters.reserve(EVENTS_COUNTER, size))
        self._codes = KnownCodes()

    def page(
        self,
        after: int,
        limit: int,
        status: str | None = None,
        pedido_id: int | None = None,
        owner_id: int | None = None,
    ) -> Page:
        """By order when given one (an order has few shipments, so filtering them by
        status and owner is cheap); else by owner (a customer's, filtered by status);
        else by status; else the whole list."""
        if pedido_id is not None:
            return self._index_page(
                ShipmentModel.by_order, pedido_id, after, limit, _only(status, owner_id)
            )
        if owner_id is not None:
            return self._index_page(
                ShipmentModel.by_user, owner_id, after, limit, _only(status, None)
            )
        if status is not None:
            return self._sharded_page(ShipmentModel.by_status, status, STATUS_SHARDS, after, limit)
        return super().page(after, limit)

    # Answers the shipment as stored (its code is drawn again if taken): the base answers none.
    def add(self, shipment: Shipment) -> Shipment:  # type: ignore[override]
        """Its tracking code claimed first (a code no other shipment has: another one is
        drawn in the unheard-of case it is taken), then the shipment saved. A claim left
        by a create that died in between leads to no shipment: as unknown as any code."""
        stored = replace(shipment, codigo_seguimiento=self._claim(shipment))
        super().add(stored)
        return stored

    def add_part(self, plan: PlanPart) -> Shipment:
        """A shipment with lines of its order, saved in one transaction with what it adds
        to its order's counts (`plan()`: the shipment and that update, from the order as it
        is now; asked again when the order changed meanwhile, which may refuse it)."""
        code: str | None = None
        for _ in range(MAX_ATTEMPTS):
            shipment, counted = plan()
            if code is None:
                code = self._claim(shipment)
            stored = replace(shipment, codigo_seguimiento=code)
            try:
                with TransactWrite(connection=self._connection) as tx:
                    tx.save(item_of(stored), condition=ShipmentModel.id.does_not_exist())
                    counted(tx)
            except TransactWriteError as exc:
                if not _refused(exc):
                    raise
                continue  # the order changed (another shipment, its own move): planned again
            return stored
        raise Conflict("CONCURRENT_UPDATE", "The order kept changing; retry")

    def _claim(self, shipment: Shipment) -> str:
        code = shipment.codigo_seguimiento or new_code()
        for _ in range(MAX_ATTEMPTS):
            try:
                TrackingCodeModel(code, envio_id=shipment.id).save(
                    condition=TrackingCodeModel.codigo.does_not_exist()
                )
            except PutError as exc:
                if not storage.condition_failed(exc):
                    raise
                code = new_code()
                continue
            return code
        raise Conflict("CONCURRENT_UPDATE", "No tracking code could be claimed; retry")

    def delete(self, shipment_id: int, uncount: Uncount) -> None:
        """The shipment gone while CREADO or ASIGNADO with its units not yet out (409
        SHIPMENT_ON_ITS_WAY later), in one transaction with its units given back to its
        order's count of units not yet on a shipment (`uncount`: that update, None for a
        shipment without lines). Its tracking code's claim stays, leading to no shipment."""
        m = ShipmentModel
        for _ in range(MAX_ATTEMPTS):
            item = storage.get_item(ShipmentModel, self.known(shipment_id))
            if item is None:
                raise unknown_shipment(shipment_id)
            shipment = self._entity_of(item)
            if shipment.status not in DELETABLE or shipment.salida is not None:
                raise on_its_way(shipment)
            condition = (m.status == shipment.status) & m.salida.does_not_exist()
            counted = uncount(shipment)
            try:
                with TransactWrite(connection=self._connection) as tx:
                    tx.delete(ShipmentModel(shipment_id), condition=condition)
                    if counted is not None:
                        counted(tx)
            except TransactWriteError as exc:
                if not _refused(exc):
                    raise
                continue  # moved meanwhile: read again
            return
        raise Conflict("CONCURRENT_UPDATE", f"Shipment {shipment_id} kept changing; retry")

    def move(
        self,
        shipment_id: int,
        decide: Decide,
        change_of: ChangeOf,
        event: TrackingEvent | None = None,
        seen: Shipment | None = None,
    ) -> Moved:
        """Make the change `decide` says, from the shipment as it is; with `event`, record
        the event with it (a repeat of its external id: the first one, nothing written).
        `seen`: the shipment as just read (consistently) by the caller, decided from
        first, instead of reading it again."""
        for _ in range(MAX_ATTEMPTS):
            if seen is not None:
                before, kept, seen = seen, None, None
            else:
                item = storage.get_item(ShipmentModel, self.known(shipment_id))
                if item is None:
                    raise unknown_shipment(shipment_id)
                before, kept = self._entity_of(item), len(item.historial or [])
            step = decide(before)
            if step is None:
                return Moved(before, before, None)
            entry = change_of(step.status) if step.status is not None else None
            try:
                if event is None:
                    self._update(before, step, entry)
                else:
                    event = self._record(before, step, entry, event, before.owner_id)
            except (UpdateError, TransactWriteError) as exc:
                if isinstance(exc, UpdateError) and not storage.condition_failed(exc):
                    raise
                if event is not None and (first := self.event(shipment_id, event.id_externo)):
                    return Moved(before, before, None, first, repeated=True)
                continue  # changed meanwhile: decided again, from the shipment as it is now
            if step.status is not None and (kept is None or kept >= KEPT_BEFORE_TRIM):
                written = storage.get_item(ShipmentModel, shipment_id)
                if written is not None:
                    _trim(written)
            return Moved(before, applied(before, step), step, event)
        raise Conflict("CONCURRENT_UPDATE", f"Shipment {shipment_id} kept changing; retry")

    def _update(self, before: Shipment, step: Step, entry: Entry | None) -> None:
        actions = _actions(step, entry, None)
        if step.status is not None:
            actions.append(
                ShipmentModel.status_shard.set(shards.key(step.status, before.id, STATUS_SHARDS))
            )
        ShipmentModel(before.id).update(actions=actions, condition=_as_read(before))

    def _record(
        self,
        before: Shipment,
        step: Step,
        entry: Entry | None,
        event: TrackingEvent,
        user_id: int | None,
    ) -> TrackingEvent:
        """The event and the step in one transaction. Its words are kept only while its
        shipment holds its person's data: once they are erased, none are written under
        them (the condition closes the race with an erasure)."""
        condition = _as_read(before)
        if event.detalle is not None:
            if before.destino is None:
                event = replace(event, detalle=None)
                step = _without_words(step)
            else:
                condition = condition & ShipmentModel.destino.exists()
        actions = _actions(step, entry, jsonio.dumps(api_json(event), ascii_only=False))
        if step.status is not None:
            actions.append(
                ShipmentModel.status_shard.set(shards.key(step.status, before.id, STATUS_SHARDS))
            )
        with TransactWrite(connection=self._connection) as tx:
            tx.save(
                event_item_of(event, user_id),
                condition=TrackingEventModel.clave.does_not_exist(),
            )
            tx.update(ShipmentModel(before.id), actions=actions, condition=condition)
        return event

    def next_event_id(self) -> int:
        return self._event_ids.next_id()

    def event(self, shipment_id: int, id_externo: str | None) -> TrackingEvent | None:
        """The shipment's event of this external id, if one was recorded."""
        if id_externo is None:
            return None
        try:
            item = TrackingEventModel.get(shipment_id, key_of(0, id_externo), consistent_read=True)
        except DoesNotExist:
            return None
        return event_of(item)

    def events(self, shipment_id: int) -> list[TrackingEvent]:
        """The shipment's events (at most MAX_EVENTS), in no particular order."""
        found = TrackingEventModel.query(shipment_id, limit=MAX_EVENTS, page_size=MAX_EVENTS)
        return [event_of(item) for item in found]

    def by_code(self, code: str) -> Shipment | None:
        """The shipment of a tracking code: its claim (a claim never changes: the ones
        found are kept in memory), then the shipment, read strongly consistent."""
        ident = self._codes.get(code)
        if ident is None:
            try:
                claim = TrackingCodeModel.get(code, consistent_read=True)
            except DoesNotExist:
                return None
            ident = self._codes.put(code, int(claim.envio_id))
        item = storage.get_item(ShipmentModel, ident)
        if item is None or item.codigo_seguimiento != code:
            return None  # a claim left by a create or a backfill that did not finish
        return self._entity_of(item)

    def due(self, now: str, limit: int) -> list[int]:
        """Shipments whose estimate passed by `now` and is still to be checked (at most
        `limit` of each shard's), oldest estimate first within each shard."""
        found: list[int] = []
        for shard_key in shards.keys(DUE, DUE_SHARDS):
            results = ShipmentModel.due.query(
                shard_key, ShipmentModel.fecha_estimada_entrega <= now, limit=limit
            )
            found += [int(item.id) for item in results]
        return found

    def checked(self, shipment_id: int, now: str) -> bool:
        """The shipment's estimate checked: marked late (the stream then makes its
        `envio.atrasado`, once: only the write that finds it unmarked does it) unless it
        was delivered; either way out of the index. True if it was marked late."""
        m = ShipmentModel
        item = m(shipment_id)
        try:
            item.update(
                actions=[m.atraso_avisado.set(now), m.vence.remove()],
                condition=m.vence.exists()
                & m.atraso_avisado.does_not_exist()
                & (m.status != "ENTREGADO"),
            )
            return True
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise
        try:
            item.update(actions=[m.vence.remove()], condition=m.id.exists())
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise
        return False

    def history(self, shipment_id: int) -> tuple[Shipment, list[Entry]]:
        """The shipment and its kept status changes."""
        item = storage.get_item(ShipmentModel, self.known(shipment_id))
        if item is None:
            raise unknown_shipment(shipment_id)
        return self._entity_of(item), storage.entries(item.historial)


class KnownCodes:
    """Tracking codes found, and their shipments' ids: at most KNOWN_CODES, the oldest
    forgotten first (a claim never changes, so a kept one is never stale)."""

    def __init__(self) -> None:
        self._ids: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, code: str) -> int | None:
        with self._lock:
            return self._ids.get(code)

    def put(self, code: str, ident: int) -> int:
        with self._lock:
            self._ids[code] = ident
            while len(self._ids) > KNOWN_CODES:
                self._ids.popitem(last=False)
        return ident


def _without_words(step: Step) -> Step:
    """A step whose incident keeps its date, not its words (its person was erased)."""
    if step.incident is None:
        return step
    return replace(step, incident=replace(step.incident, detalle=None))


def _trim(item: ShipmentModel) -> None:
    """Down to the KEPT_CHANGES newest changes, unless one was appended meanwhile (the
    next change trims then). One write per TRIM_SLACK changes, past the first hundred."""
    changes = storage.entries(item.historial)
    try:
        item.update(
            actions=[
                ShipmentModel.historial.set(
                    [storage.history_entry(entry) for entry in history.newest(changes)]
                )
            ],
            condition=size(ShipmentModel.historial) == len(changes),
        )
    except UpdateError as exc:
        if not storage.condition_failed(exc):
            raise


def _refused(error: TransactWriteError) -> bool:
    """Cancelled by a condition or by another transaction on the same items at that
    instant: worth deciding again from a fresh read (anything else is raised)."""
    reasons = getattr(error.cause, "cancellation_reasons", None) or []
    codes = {r.code for r in reasons if r is not None}
    return bool(codes & {"ConditionalCheckFailed", "TransactionConflict"})


def _only(status: str | None, owner_id: int | None) -> Condition | None:
    """The filter keeping a status and an owner, either or both (None: keep all)."""
    conditions = [
        condition
        for condition in (
            ShipmentModel.status == status if status is not None else None,
            ShipmentModel.owner_id == owner_id if owner_id is not None else None,
        )
        if condition is not None
    ]
    if not conditions:
        return None
    return conditions[0] if len(conditions) == 1 else conditions[0] & conditions[1]
