"""The stock repair (docs/api.md#stock-follows-orders): what a crash or a lost answer
between an order's stock move and its status write left, put right.

An order's status is written after its stock move, so a crash between the two leaves the
units moved and the order as it was: units held for an order that is not APROBADO, or an
APROBADO order whose units were given back or taken out. Each run compares the two sides
and makes the move that brings the units in line with the order's status; every move is
keyed by the order on the inventory's side, so a repair that runs twice, or meets the
order's own retry, makes it once. And each is made only on the reservation as the repair
read it: a retried move that finds its units moved already claims the reservation (its
`cambio` set anew) before writing its status, so one conditional write decides between
the repair and the retry (a repair never gives back the units of an approval being
retried, which would then be approved holding none).

A move younger than the grace may still be on its way (its status write not yet made):
the repair leaves it to the request that made it.

Each run also has the inventory check its counters against its ledger (the invariant
check, docs/api.md#stock-per-warehouse) for one slice of the catalog (one of the products'
16 byShard partitions, in turn by the clock: the whole catalog every 32 minutes on AWS),
and put right what differs; what it found is logged and counted (StockDrift).
"""

import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from common.orders.records import Order
from common.platform import metrics
from common.platform.clock import to_iso, utcnow
from common.platform.errors import DomainError
from common.platform.logs import Logger
from common.stock.client import Inventory, InventoryUnavailable, NotHeld, ReservationChanged
from common.stock.moves import (
    CATALOG_SLICES,
    FORCE,
    GIVE_BACK,
    HANDED_OVER,
    HELD,
    PUT_BACK,
    RELEASED,
    TAKE_OUT,
)
from common.storage.paging import Page

# Orders and reservations read per batch; no batch is started with less than the
# reserve left of the invocation.
BATCH = 100
RESERVE_MS = 10_000
# How often the schedule runs the repair (infra/template.yaml): the slice of the catalog
# whose counters a run checks follows from the clock by it.
EVERY_SECONDS = 120


def repair_move(order: str | None, units: str | None, parts_to_go: bool = False) -> str | None:
    """The stock move that brings an order's units (their reservation's status, None:
    never reserved) in line with the order's status (None: no such order); None when
    they are. `parts_to_go`: the order is on its way by its parts, some of its units not
    yet (docs/api.md#shipments-of-parts): those leave with their own shipments."""
    if units == HELD and order in ("PENDIENTE", "CANCELADO"):
        return GIVE_BACK  # an approval that lost its status write, or a cancel's undo
    if units == HELD and order == "EN_ENVIO" and parts_to_go:
        return None
    if units == HELD and order in ("EN_ENVIO", "ENTREGADO"):
        return TAKE_OUT  # a ship whose undo was lost
    if order == "APROBADO" and units in (None, RELEASED):
        return FORCE  # a cancel that lost its status write; an order approved before
    if order == "APROBADO" and units == HANDED_OVER:
        return PUT_BACK  # a ship that lost its status write
    return None


def _parts_to_go(order: Order) -> bool:
    """An order moved to EN_ENVIO by its first part on the road (its own move counts every
    unit on its way) with units still to leave with their shipments."""
    return any(line.cantidad_enviada < line.cantidad for line in order.lineas)


class Orders(Protocol):
    def several(self, idents: list[int]) -> dict[int, Order]: ...
    def page(self, after: int, limit: int, status: str | None = None) -> Page: ...


@dataclass
class Outcome:
    checked: int = 0
    repaired: int = 0
    failed: int = 0
    drift: int = 0  # counters the invariant check found differing from the ledger (and fixed)
    complete: bool = True  # every order and reservation was looked at


class Repair:
    def __init__(
        self,
        orders: Orders,
        inventory: Inventory,
        logger: Logger,
        grace: timedelta,
        clock: Callable[[], float] = time.time,
    ):
        self._orders, self._inventory = orders, inventory
        self._logger, self._grace, self._clock = logger, grace, clock

    def __call__(self, context: Any = None, slices: Iterable[int] | None = None) -> dict:
        """One run: every reservation holding units against its order, then every APROBADO
        order against its reservation; then the counters of one slice of the catalog
        (`slices`: those, instead) against the ledger."""
        settled_before = to_iso(utcnow() - self._grace)
        outcome = Outcome()
        if slices is None:
            slices = [int(self._clock() // EVERY_SECONDS) % CATALOG_SLICES]
        try:
            for batch in self._batches(context, outcome):
                self._repair(batch, settled_before, outcome)
            for shard in slices:
                self._balance(shard, settled_before, context, outcome)
        except InventoryUnavailable:
            outcome.complete = False  # the next run takes it up
        self._logger.info("stock repaired", extra=vars(outcome))
        return vars(outcome)

    def _balance(self, shard: int, settled_before: str, context: Any, outcome: Outcome) -> None:
        """The invariant check of one slice of the catalog, page by page while time is left."""
        after: int | None = 0
        while after is not None:
            if context is not None and context.get_remaining_time_in_millis() < RESERVE_MS:
                outcome.complete = False
                return
            found, after = self._inventory.balance(shard, after, settled_before)
            for finding in found:
                outcome.drift += 1
                self._logger.warning("stock counters put right", extra=finding)
            if found:
                metrics.count(metrics.STOCK_DRIFT, len(found), service="stock-repair")

    def _batches(self, context: Any, outcome: Outcome) -> Iterator[list[tuple[Order, dict | None]]]:
        """(order, its reservation) pairs, a batch at a time, while time is left."""
        held: set[int] = set()
        for pairs in itertools.chain(self._held(held), self._approved(held)):
            if context is not None and context.get_remaining_time_in_millis() < RESERVE_MS:
                outcome.complete = False
                return
            yield pairs

    def _held(self, held: set[int]) -> Iterator[list[tuple[Order, dict | None]]]:
        """Each reservation holding units, with its order; `held` gathers their orders."""
        after: int | None = 0
        while after is not None:
            reservations, after = self._inventory.holding(after)
            held.update(int(r["pedidoId"]) for r in reservations)
            orders = self._orders.several([int(r["pedidoId"]) for r in reservations])
            yield [
                (orders[int(r["pedidoId"])], r)
                for r in reservations
                if int(r["pedidoId"]) in orders
            ]

    def _approved(self, held: set[int]) -> Iterator[list[tuple[Order, dict | None]]]:
        """Each APROBADO order whose units were not seen held, with what its reservation
        is now (one question each: in a healthy stack, none are asked)."""
        after: int | None = 0
        while after is not None:
            page = self._orders.page(after, BATCH, status="APROBADO")
            yield [
                (order, self._inventory.reservation(order.id))
                for order in page.items
                if order.id not in held
            ]
            after = page.resume_after

    def _repair(
        self, batch: list[tuple[Order, dict | None]], settled_before: str, outcome: Outcome
    ) -> None:
        for order, reservation in batch:
            outcome.checked += 1
            if reservation is not None and str(reservation.get("cambio", "")) > settled_before:
                continue  # a move on its way: its own request finishes it
            move = repair_move(
                order.status, reservation["estado"] if reservation else None, _parts_to_go(order)
            )
            if move is None:
                continue
            seen = str(reservation["cambio"]) if reservation else None
            try:
                self._inventory.move(move, order, seen=seen)
            except ReservationChanged:
                continue  # moved since read (a retried move claimed it): that move decides
            except (DomainError, NotHeld) as refused:
                outcome.failed += 1
                self._logger.warning(
                    "stock repair refused",
                    extra={"pedidoId": order.id, "move": move, "reason": str(refused)},
                )
                continue
            outcome.repaired += 1
            self._logger.info("stock repaired", extra={"pedidoId": order.id, "move": move})
