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

from pynamodb.exceptions import DoesNotExist, TransactWriteError
from pynamodb.transactions import TransactWrite

from common import shards, storage
from common.errors import Conflict
from common.paging import Page
from common.repository import merged_page
from common.settings import Settings
from inventory.model import HOLDING, HOLDING_SHARDS, ProductModel, ReservationModel, product_of
from inventory.repository import alert_mark
from inventory.rules import (
    GIVEN_BACK,
    HELD,
    TAKEN_OUT,
    Product,
    Reservation,
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

    def reserve(self, reservation: Reservation, force: bool = False) -> bool:
        """Hold the order's units (again, if they were given back): True when this call
        did, False when the order already held them. Only while available, unless `force`
        (a repair of an order already approved: the units are its, whatever is left).
        INSUFFICIENT_STOCK, or PRODUCT_NOT_FOUND, when it may not."""
        m, p = ReservationModel, ProductModel
        c = reservation.cantidad
        # Units given back may be held again: an order whose approval a crash cut short
        # (the repair gave them back) is approved again, or repaired (force).
        new = m.pedido_id.does_not_exist() | (m.estado == GIVEN_BACK)
        available = (p.stock_disponible >= c) | (
            p.stock_disponible.does_not_exist() & (p.stock_actual >= c)
        )
        try:
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
        except TransactWriteError:
            return self._why_not_reserved(reservation)
        return True

    def _why_not_reserved(self, reservation: Reservation) -> bool:
        """After a cancelled reservation: held already (False), or why it may not be."""
        current = self.reservation(reservation.pedido_id)
        if current is not None and current.estado == HELD:
            return False
        if current is not None and current.estado == TAKEN_OUT:
            raise not_held(reservation.pedido_id, current.estado)
        product = self._product(reservation.producto_id)
        if product is None:
            raise product_gone(reservation.producto_id)
        raise insufficient_stock(product, reservation.cantidad)

    def give_back(self, pedido_id: int, now: str) -> bool:
        """Release the order's units (a cancel): True when this call did, False when they
        were given back already; RESERVATION_NOT_HELD when they are not held (taken out,
        or never reserved)."""
        current = self.reservation(pedido_id)
        if current is not None and current.estado == GIVEN_BACK:
            return False
        if current is None or current.estado != HELD:
            raise not_held(pedido_id, current.estado if current else None)
        m, p, c = ReservationModel, ProductModel, current.cantidad
        try:
            with TransactWrite(connection=self._connection) as tx:
                tx.update(m(pedido_id), actions=_done(GIVEN_BACK, now), condition=m.estado == HELD)
                tx.update(
                    p(current.producto_id),
                    actions=[
                        p.stock_reservado.set(p.stock_reservado - c),
                        p.stock_disponible.set(p.stock_disponible + c),
                    ],
                    condition=p.id.exists(),
                )
        except TransactWriteError:
            return self._moved_meanwhile(pedido_id, GIVEN_BACK)
        return True

    def take_out(self, pedido_id: int, now: str) -> bool:
        """The order's units leave the warehouse (a shipment): stockActual and
        stockReservado both go down; True when this call did it, False when done before."""
        return self._out_or_back(pedido_id, now, out=True)

    def put_back(self, pedido_id: int, now: str) -> bool:
        """Undo a take-out whose order then lost its move: the units are held again."""
        return self._out_or_back(pedido_id, now, out=False)

    def _out_or_back(self, pedido_id: int, now: str, out: bool) -> bool:
        source, target = (HELD, TAKEN_OUT) if out else (TAKEN_OUT, HELD)
        for _ in range(MAX_ATTEMPTS):
            current = self.reservation(pedido_id)
            if current is not None and current.estado == target:
                return False
            if current is None or current.estado != source:
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
        raise Conflict("CONCURRENT_UPDATE", f"Order {pedido_id}'s stock kept changing; retry")

    def _write_out_or_back(
        self, reservation: Reservation, product: Product, now: str, out: bool
    ) -> None:
        m, p = ReservationModel, ProductModel
        change = -reservation.cantidad if out else reservation.cantidad
        state = (
            _done(TAKEN_OUT, now)
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
            tx.update(
                m(reservation.pedido_id),
                actions=state,
                condition=m.estado == (HELD if out else TAKEN_OUT),
            )
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

    def _moved_meanwhile(self, pedido_id: int, wanted: str) -> bool:
        current = self.reservation(pedido_id)
        if current is not None and current.estado == wanted:
            return False
        raise not_held(pedido_id, current.estado if current else None)

    @staticmethod
    def _product(producto_id: int) -> Product | None:
        try:
            return product_of(ProductModel.get(producto_id, consistent_read=True))
        except DoesNotExist:
            return None
