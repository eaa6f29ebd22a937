"""The units orders hold, in DynamoDB: each stock move of an order is one transaction of
two conditional writes, the order's reservation and its product's counters
(docs/api.md#stock-follows-orders).

A reservation is keyed by its order, so a move is done once however often it is asked
(a retry, a second delivery, a repair): its condition is the reservation's state, and
when it fails the move reads that state back to tell "already done" (False) from "not
possible" (a domain error). The product's counters change by arithmetic on the server
(`stockDisponible >= n`, `stockReservado + n`), so concurrent approvals of one product
never oversell and never retry; a take-out, which can bring the product into alert,
changes the stock by arithmetic too, on the condition that the stock is still on the side
of the threshold it read (only a move that crossed it meanwhile makes it read again),
and that the units are on hand: a recount may leave fewer than the orders hold, and
stockActual never goes below zero (INSUFFICIENT_STOCK; the order stays APROBADO).
"""

import time
from typing import Any

from pynamodb.exceptions import DoesNotExist, TransactWriteError, UpdateError
from pynamodb.transactions import TransactWrite

from common import shards, storage
from common.errors import Conflict
from common.paging import Page
from common.repository import merged_page
from common.settings import Settings
from common.stock import (
    FROM,
    GIVE_BACK,
    HANDED_OVER,
    HELD,
    PUT_BACK,
    RELEASED,
    RESERVE,
    TAKE_OUT,
    TO,
)
from inventory.model import HOLDING, HOLDING_SHARDS, ProductModel, ReservationModel, product_of
from inventory.repository import alert_mark
from inventory.rules import (
    Product,
    Reservation,
    changed_since,
    insufficient_stock,
    not_held,
    not_on_hand,
    product_gone,
)

# How long a reservation that holds nothing more keeps its state, so that a move asked
# again (a retry, a repair) finds it done: far longer than any retry or repair takes.
KEEP_DONE_SECONDS = 7 * 24 * 3600
# Rounds of a take-out whose product crossed its threshold, or had it changed, between
# its read and its write.
MAX_ATTEMPTS = 5


def reservation_of(item: ReservationModel) -> Reservation:
    return Reservation(
        pedido_id=int(item.pedido_id),
        producto_id=int(item.producto_id),
        cantidad=int(item.cantidad),
        desde=item.desde,
        estado=item.estado,
        cambio=item.cambio,
    )


def _holding(pedido_id: int, producto_id: int) -> list[Any]:
    """The index keys a holding reservation carries (inventory.model)."""
    m = ReservationModel
    return [
        m.retiene.set(producto_id),
        m.retiene_shard.set(shards.key(HOLDING, pedido_id, HOLDING_SHARDS)),
        m.expira.remove(),
    ]


def _as_read(reservation: Reservation) -> Any:
    """The condition that the reservation is still as it was read."""
    m = ReservationModel
    return (m.estado == reservation.estado) & (m.cambio == reservation.cambio)


def _kept_changing(pedido_id: int) -> Conflict:
    return Conflict("CONCURRENT_UPDATE", f"Order {pedido_id}'s stock kept changing; retry")


def _done(estado: str, now: str) -> list[Any]:
    """A reservation that holds nothing more: off the indexes, kept a while, then gone."""
    m = ReservationModel
    return [
        m.estado.set(estado),
        m.cambio.set(now),
        m.retiene.remove(),
        m.retiene_shard.remove(),
        m.expira.set(int(time.time()) + KEEP_DONE_SECONDS),
    ]


class StockRepository:
    def __init__(self, settings: Settings):
        storage.bind(settings, ReservationModel, ProductModel)
        self._connection = storage.connection(settings)

    # -- reading -------------------------------------------------------------------------

    def reservation(self, pedido_id: int) -> Reservation | None:
        try:
            return reservation_of(ReservationModel.get(pedido_id, consistent_read=True))
        except DoesNotExist:
            return None

    def holding(self, producto_id: int) -> list[Reservation]:
        """The reservations holding the product's units, in ascending pedidoId."""
        return [reservation_of(item) for item in ReservationModel.by_product.query(producto_id)]

    def holding_page(self, after: int, limit: int) -> Page:
        """A page of every reservation holding units, in ascending pedidoId."""
        page = merged_page(
            ReservationModel.holding,
            ReservationModel.pedido_id,
            shards.keys(HOLDING, HOLDING_SHARDS),
            after,
            limit,
            id_of=lambda item: int(item.pedido_id),
        )
        return Page([reservation_of(item) for item in page.items], page.resume_after)

    # -- the moves -----------------------------------------------------------------------
    #
    # `seen`: the reservation's `cambio` as the repair read it; the repair's move is made
    # only on the reservation as it read it (RESERVATION_CHANGED otherwise). A move asked
    # again that finds itself made before (a retry) claims the reservation instead (its
    # `cambio` set anew, on the condition that it is still in that state): a repair that
    # read it before then finds it changed. One conditional write on the reservation
    # decides which of the two goes, so a repair never undoes a move an order's request
    # is about to write its status for.

    def reserve(
        self, reservation: Reservation, force: bool = False, seen: str | None = None
    ) -> bool:
        """Hold the order's units (again, if they were given back): True when this call
        did, False when the order already held them. Only while available, unless `force`
        (a repair of an order already approved: the units are its, whatever is left).
        INSUFFICIENT_STOCK, or PRODUCT_NOT_FOUND, when it may not."""
        for _ in range(MAX_ATTEMPTS):
            try:
                self._write_reservation(reservation, force, seen)
            except TransactWriteError:
                if not self._why_not_reserved(reservation, seen):
                    return False
                continue  # given back between the write and the claim: reserve again
            return True
        raise _kept_changing(reservation.pedido_id)

    def _write_reservation(self, reservation: Reservation, force: bool, seen: str | None) -> None:
        m, p = ReservationModel, ProductModel
        c = reservation.cantidad
        # Units given back may be held again: an order whose approval a crash cut short
        # (the repair gave them back) is approved again, or repaired (force).
        new = m.pedido_id.does_not_exist() | (m.estado == RELEASED)
        if seen is not None:
            new = m.pedido_id.does_not_exist() | ((m.estado == RELEASED) & (m.cambio == seen))
        available = (p.stock_disponible >= c) | (
            p.stock_disponible.does_not_exist() & (p.stock_actual >= c)
        )
        with TransactWrite(connection=self._connection) as tx:
            tx.update(
                m(reservation.pedido_id),
                actions=[
                    m.producto_id.set(reservation.producto_id),
                    m.cantidad.set(c),
                    m.estado.set(HELD),
                    m.desde.set(reservation.desde),
                    m.cambio.set(reservation.desde),
                    *_holding(reservation.pedido_id, reservation.producto_id),
                ],
                condition=new,
            )
            tx.update(
                p(reservation.producto_id),
                actions=[
                    p.stock_reservado.set((p.stock_reservado | 0) + c),
                    p.stock_disponible.set((p.stock_disponible | p.stock_actual) - c),
                ],
                condition=p.id.exists() if force else p.id.exists() & available,
            )

    def _why_not_reserved(self, reservation: Reservation, seen: str | None) -> bool:
        """After a refused reservation: held already, and claimed (False); given back
        before it could be claimed, so to be tried again (True); or why it may not be."""
        current = self.reservation(reservation.pedido_id)
        if current is not None and current.estado == TO[RESERVE]:
            return not self._claimed(current, reservation.desde)
        if current is not None and current.estado not in FROM[RESERVE]:
            raise not_held(reservation.pedido_id, current.estado)
        if seen is not None and current is not None and current.cambio != seen:
            raise changed_since(reservation.pedido_id)
        product = self._product(reservation.producto_id)
        if product is None:
            raise product_gone(reservation.producto_id)
        raise insufficient_stock(product, reservation.cantidad)

    def give_back(self, pedido_id: int, now: str, seen: str | None = None) -> bool:
        """Release the order's units (a cancel): True when this call did, False when they
        were given back already; RESERVATION_NOT_HELD when they are not held (taken out,
        or never reserved)."""
        for _ in range(MAX_ATTEMPTS):
            current = self._as_seen(pedido_id, seen)
            if current is not None and current.estado == TO[GIVE_BACK]:
                if self._claimed(current, now):
                    return False
                continue
            if current is None or current.estado not in FROM[GIVE_BACK]:
                raise not_held(pedido_id, current.estado if current else None)
            try:
                self._write_give_back(current, now)
            except TransactWriteError:
                continue  # the reservation changed since read: read again
            return True
        raise _kept_changing(pedido_id)

    def _write_give_back(self, current: Reservation, now: str) -> None:
        m, p, c = ReservationModel, ProductModel, current.cantidad
        with TransactWrite(connection=self._connection) as tx:
            tx.update(
                m(current.pedido_id),
                actions=_done(RELEASED, now),
                condition=_as_read(current),
            )
            tx.update(
                p(current.producto_id),
                actions=[
                    p.stock_reservado.set(p.stock_reservado - c),
                    p.stock_disponible.set(p.stock_disponible + c),
                ],
                condition=p.id.exists(),
            )

    def take_out(self, pedido_id: int, now: str, seen: str | None = None) -> bool:
        """The order's units leave the warehouse (a shipment): stockActual and
        stockReservado both go down; True when this call did it, False when done before."""
        return self._out_or_back(pedido_id, now, seen, out=True)

    def put_back(self, pedido_id: int, now: str, seen: str | None = None) -> bool:
        """Undo a take-out whose order then lost its move: the units are held again."""
        return self._out_or_back(pedido_id, now, seen, out=False)

    def _out_or_back(self, pedido_id: int, now: str, seen: str | None, out: bool) -> bool:
        move = TAKE_OUT if out else PUT_BACK
        for _ in range(MAX_ATTEMPTS):
            current = self._as_seen(pedido_id, seen)
            if current is not None and current.estado == TO[move]:
                if self._claimed(current, now):
                    return False
                continue
            if current is None or current.estado not in FROM[move]:
                raise not_held(pedido_id, current.estado if current else None)
            product = self._product(current.producto_id)
            if product is None:
                raise product_gone(current.producto_id)
            if out and product.stock_actual < current.cantidad:
                raise not_on_hand(product, current.cantidad)
            try:
                self._write_out_or_back(current, product, now, out)
            except TransactWriteError:
                continue  # the reservation or the product's stock changed: read again
            return True
        raise _kept_changing(pedido_id)

    def _write_out_or_back(
        self, reservation: Reservation, product: Product, now: str, out: bool
    ) -> None:
        m, p = ReservationModel, ProductModel
        change = -reservation.cantidad if out else reservation.cantidad
        state = (
            _done(HANDED_OVER, now)
            if out
            else [
                m.estado.set(HELD),
                m.cambio.set(now),
                *_holding(reservation.pedido_id, reservation.producto_id),
            ]
        )
        # The units change by arithmetic, so concurrent moves of one product never
        # conflict; the alert mark follows from the stock as read, on the condition that
        # the stock written is on the same side of the threshold (only moves that cross
        # it meanwhile read again) and the threshold is the one read.
        crossing = product.umbral_minimo - change  # in alert after iff stock before < this
        mark = alert_mark(product.id, product.stock_actual + change, product.umbral_minimo)
        side = p.stock_actual < crossing if mark else p.stock_actual >= crossing
        if out:  # never below zero: a recount may have left fewer than the order holds
            side = side & (p.stock_actual >= reservation.cantidad)
        with TransactWrite(connection=self._connection) as tx:
            tx.update(m(reservation.pedido_id), actions=state, condition=_as_read(reservation))
            tx.update(
                p(product.id),
                actions=[
                    p.stock_actual.set(p.stock_actual + change),
                    # What is available does not change: the units were reserved.
                    p.stock_reservado.set(p.stock_reservado + change),
                    p.en_alerta.set(mark) if mark else p.en_alerta.remove(),
                ],
                condition=side & (p.umbral_minimo == product.umbral_minimo),
            )

    def _as_seen(self, pedido_id: int, seen: str | None) -> Reservation | None:
        """The reservation now; RESERVATION_CHANGED when a repair read it otherwise."""
        current = self.reservation(pedido_id)
        if seen is not None and (current is None or current.cambio != seen):
            raise changed_since(pedido_id)
        return current

    def _claimed(self, current: Reservation, now: str) -> bool:
        """A move found made before (a retry): the reservation claimed for it, so that a
        repair that read it before this changes nothing of it; False when it is no longer
        in that state (moved meanwhile: the move decides again)."""
        m = ReservationModel
        try:
            m(current.pedido_id).update(
                actions=[m.cambio.set(now)], condition=m.estado == current.estado
            )
        except UpdateError as exc:
            if storage.condition_failed(exc):
                return False
            raise
        return True

    @staticmethod
    def _product(producto_id: int) -> Product | None:
        try:
            return product_of(ProductModel.get(producto_id, consistent_read=True))
        except DoesNotExist:
            return None
