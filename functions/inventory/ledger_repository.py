"""What the inventory's stock writes read and build (inventory.stock_repository,
inventory.repository): an order's reservation from the stock ledger, a product as its
stock is now (an item written before warehouses carried into PRINCIPAL first), the
warehouses' priorities, and the one update of a product item that moves its counters.

A product item holds its stock per warehouse (`existencias`, common.stock.product_model)
beside its totals, and every change of its counters is one update of that item that
moves a warehouse's row and the totals together, by arithmetic on the server, on the
conditions that decide it (`existencias.3.disponible >= 2`): a product's totals are
never read and written back, and a line of an order costs its transaction one product
item whatever the number of warehouses its units come from.
"""

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pynamodb.exceptions import DoesNotExist, TransactWriteError, UpdateError
from pynamodb.expressions.operand import Path
from pynamodb.transactions import TransactWrite

from common.platform.settings import Cloud
from common.stock.moves import HANDED_OVER, HELD
from common.stock.product_model import ACTUAL, AVAILABLE, RESERVED, row_map
from common.stock.records import PRINCIPAL_ID, Product, StockRow, Warehouse, principal
from common.storage import shards
from common.storage import tables as storage
from common.storage.paging import Page
from common.storage.repository import merged_page
from inventory.model import (
    ALERT_SHARDS,
    HOLDING,
    HOLDING_SHARDS,
    IN_ALERT,
    ORDER_CAUSE,
    WAREHOUSE_CAUSE,
    LedgerModel,
    ProductModel,
    ReservationModel,
    WarehouseModel,
    cause,
    product_of,
    warehouse_of,
)
from inventory.rules import HeldLine, Holding, Reservation, holdings

# A line that holds nothing more is kept this long, so that a move asked again (a
# retry, a repair) finds it done: far longer than any retry or repair takes.
KEEP_DONE_SECONDS = 7 * 24 * 3600


def alert_mark(product_id: int, stock_actual: int, umbral_minimo: int) -> str | None:
    """The alert index's key while the product is in alert (inventory.rules.in_alert)."""
    below = stock_actual < umbral_minimo
    return shards.key(IN_ALERT, product_id, ALERT_SHARDS) if below else None


def row_path(bodega_id: int, counter: str | None = None) -> Path:
    """A warehouse's row of a product item, or one of its counters."""
    segments = ["existencias", str(bodega_id)]
    return Path([*segments, counter] if counter else segments)


def line_of(item: LedgerModel) -> HeldLine:
    return HeldLine(
        pedido_id=int(item.pedido_id),
        linea=int(item.linea),
        producto_id=int(item.producto_id),
        cantidad=int(item.cantidad),
        status=item.status,
        desde=item.desde,
        cambio=item.cambio,
        asignaciones=item.asignaciones or {},
        retenidas=item.retenidas or {},
        retiradas=item.retiradas or {},
        envios=frozenset(int(e) for e in item.envios or ()),
    )


def holding_keys(line: HeldLine) -> list[Any]:
    """The index keys a line holding units carries (inventory.model)."""
    m = LedgerModel
    return [
        m.retiene.set(line.producto_id),
        m.retiene_shard.set(shards.key(HOLDING, line.pedido_id, HOLDING_SHARDS)),
        m.expira.remove(),
    ]


def held_item(line: HeldLine) -> LedgerModel:
    """A line holding its units, as a reservation writes it whole: what `holding_keys`
    sets, and no `retiradas` nor `expira`."""
    return LedgerModel(
        cause(ORDER_CAUSE, line.pedido_id),
        line.linea,
        pedido_id=line.pedido_id,
        producto_id=line.producto_id,
        cantidad=line.cantidad,
        status=line.status,
        desde=line.desde,
        cambio=line.cambio,
        asignaciones=line.asignaciones,
        retenidas=line.retenidas,
        retiene=line.producto_id,
        retiene_shard=shards.key(HOLDING, line.pedido_id, HOLDING_SHARDS),
    )


def done_keys() -> list[Any]:
    """A line that holds nothing more: off the indexes, kept a while, then gone."""
    m = LedgerModel
    return [
        m.retiene.remove(),
        m.retiene_shard.remove(),
        m.expira.set(int(time.time()) + KEEP_DONE_SECONDS),
    ]


@dataclass
class ProductChange:
    """What one write does to one product's counters: units on hand and reserved, by
    warehouse, and what must hold for it to be made (units available, units on hand)."""

    product: Product  # as read
    actual: dict[int, int] = field(default_factory=dict)
    reserved: dict[int, int] = field(default_factory=dict)
    needs_available: dict[int, int] = field(default_factory=dict)
    needs_on_hand: dict[int, int] = field(default_factory=dict)
    exact_rows: dict[int, int] = field(default_factory=dict)  # units on hand as read

    def move(self, bodega: int, actual: int = 0, reserved: int = 0) -> None:
        self.actual[bodega] = self.actual.get(bodega, 0) + actual
        self.reserved[bodega] = self.reserved.get(bodega, 0) + reserved

    @property
    def on_hand_change(self) -> int:
        return sum(self.actual.values())

    def update(self, now: str, exact_total: bool = False) -> tuple[list[Any], Any]:
        """The update's actions and condition. The alert mark follows the total as read,
        on the condition that the total written is on the same side of the threshold
        (only writes that cross it meanwhile read again) and the threshold is the one
        read; or, `exact_total`, that the total is the one read."""
        p, product = ProductModel, self.product
        actions: list[Any] = []
        condition = p.id.exists() & p.existencias.exists()
        for bodega in sorted(set(self.actual) | set(self.reserved)):
            act, res = self.actual.get(bodega, 0), self.reserved.get(bodega, 0)
            if product.row(bodega) is None:
                row = StockRow(bodega_id=bodega, stock_actual=act, stock_reservado=res)
                actions.append(row_path(bodega).set({"M": row_map(row)}))
                condition &= row_path(bodega).does_not_exist()
                continue
            for counter, change in ((ACTUAL, act), (RESERVED, res), (AVAILABLE, act - res)):
                if change:
                    actions.append(
                        row_path(bodega, counter).set(row_path(bodega, counter) + change)
                    )
        for bodega, units in self.needs_available.items():
            condition &= row_path(bodega, AVAILABLE) >= units
        for bodega, units in self.needs_on_hand.items():
            condition &= row_path(bodega, ACTUAL) >= units
        for bodega, units in self.exact_rows.items():
            condition &= row_path(bodega, ACTUAL) == units
        change, reserved = self.on_hand_change, sum(self.reserved.values())
        for attribute, delta in (
            (p.stock_actual, change),
            (p.stock_reservado, reserved),
            (p.stock_disponible, change - reserved),
        ):
            if delta:
                actions.append(attribute.set(attribute + delta))
        actions.append(p.movido.set(now))
        if change:
            mark = alert_mark(product.id, product.stock_actual + change, product.umbral_minimo)
            actions.append(p.en_alerta.set(mark) if mark else p.en_alerta.remove())
            if exact_total:
                condition &= p.stock_actual == product.stock_actual
            else:
                crossing = product.umbral_minimo - change  # in alert after iff before < this
                condition &= p.stock_actual < crossing if mark else p.stock_actual >= crossing
            condition &= p.umbral_minimo == product.umbral_minimo
        return actions, condition


def add_change(tx: TransactWrite, change: ProductChange, now: str, exact: bool = False) -> None:
    actions, condition = change.update(now, exact)
    tx.update(ProductModel(change.product.id), actions=actions, condition=condition)


def puts_units(tx: TransactWrite, producto_id: int, bodega_id: int) -> None:
    """Units put into a warehouse: it must be there and not closing (a DELETE looking for
    units there), and it is noted as holding the product, which such a DELETE reads."""
    if bodega_id == PRINCIPAL_ID:
        return  # never deleted
    w = WarehouseModel
    tx.condition_check(w, bodega_id, condition=w.id.exists() & w.cerrando.does_not_exist())
    tx.save(
        LedgerModel(
            cause(WAREHOUSE_CAUSE, bodega_id),
            producto_id,
            bodega_id=bodega_id,
            producto_id=producto_id,
        )
    )


def conflicted(error: TransactWriteError) -> bool:
    """Cancelled by another transaction on the same items at the same moment (DynamoDB's
    TransactionConflict), not by a condition: worth asking again as it was."""
    reasons = getattr(error.cause, "cancellation_reasons", None) or []
    return any(r is not None and r.code == "TransactionConflict" for r in reasons)


def pause(attempt: int) -> None:
    time.sleep(min(0.2, 0.01 * 2**attempt))


class StockItems:
    """The reads every stock write starts from."""

    def __init__(self, cloud: Cloud):
        storage.bind(cloud, LedgerModel, ProductModel, ReservationModel, WarehouseModel)
        self._connection = storage.connection(cloud)

    # -- products and warehouses ------------------------------------------------------------

    def products(self, idents: Iterable[int]) -> dict[int, Product]:
        """The products of these ids that exist, read consistently, each with its stock
        per warehouse (one written before warehouses carried into PRINCIPAL first)."""
        wanted = sorted(set(idents))
        found = {int(i.id): i for i in ProductModel.batch_get(wanted, consistent_read=True)}
        for ident, item in list(found.items()):
            if item.existencias is None:
                migrated = self.migrate_product(item)
                if migrated is None:
                    del found[ident]
                else:
                    found[ident] = migrated
        return {ident: product_of(item) for ident, item in found.items()}

    def product(self, ident: int) -> Product | None:
        """One product, as `products` reads several (by GetItem: a read of one)."""
        try:
            item = ProductModel.get(ident, consistent_read=True)
        except DoesNotExist:
            return None
        if item.existencias is None:
            item = self.migrate_product(item)
        return product_of(item) if item is not None else None

    def migrate_product(self, item: ProductModel) -> ProductModel | None:
        """A product stored before warehouses: every unit and reservation put in
        PRINCIPAL's row, on the condition that it is still as read (a write meanwhile by
        this code already did it). The item as it is after; None when it is gone."""
        p = ProductModel
        actual, reserved = int(item.stock_actual), int(item.stock_reservado or 0)
        row = StockRow(bodega_id=PRINCIPAL_ID, stock_actual=actual, stock_reservado=reserved)
        unchanged = (
            (p.stock_reservado == reserved)
            if item.stock_reservado is not None
            else (p.stock_reservado.does_not_exist())
        )
        try:
            ProductModel(int(item.id)).update(
                actions=[
                    Path(["existencias"]).set({"M": {str(PRINCIPAL_ID): {"M": row_map(row)}}}),
                    p.stock_reservado.set(reserved),
                    p.stock_disponible.set(actual - reserved),
                ],
                condition=p.existencias.does_not_exist() & (p.stock_actual == actual) & unchanged,
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise
        try:
            return ProductModel.get(int(item.id), consistent_read=True)
        except DoesNotExist:
            return None

    def warehouses(self, idents: Iterable[int]) -> dict[int, Warehouse]:
        """The warehouses of these ids (PRINCIPAL always: it is every stack's)."""
        wanted = sorted(set(idents) | {PRINCIPAL_ID})
        found = {
            int(item.id): warehouse_of(item)
            for item in WarehouseModel.batch_get(wanted, consistent_read=True)
        }
        if PRINCIPAL_ID not in found:  # not written yet: as every stack starts with it
            found[PRINCIPAL_ID] = principal("")
        return found

    def warehouses_of(self, products: Iterable[Product], pinned: Iterable[int] = ()) -> dict:
        idents = {row.bodega_id for p in products for row in p.existencias} | set(pinned)
        return self.warehouses(idents)

    # -- the ledger --------------------------------------------------------------------------

    def reservation(self, pedido_id: int) -> Reservation | None:
        """The order's lines in the ledger; one stored before the ledger is carried into it
        first (a reservation of one line, in PRINCIPAL)."""
        items = LedgerModel.query(cause(ORDER_CAUSE, pedido_id), consistent_read=True)
        lines = tuple(line_of(item) for item in items)
        if lines:
            return Reservation(pedido_id=pedido_id, lineas=lines)
        return self._carried(pedido_id)

    def _carried(self, pedido_id: int) -> Reservation | None:
        try:
            old = ReservationModel.get(pedido_id, consistent_read=True)
        except DoesNotExist:
            return None
        self.carry(old)
        items = LedgerModel.query(cause(ORDER_CAUSE, pedido_id), consistent_read=True)
        lines = tuple(line_of(item) for item in items)
        return Reservation(pedido_id=pedido_id, lineas=lines) if lines else None

    def carry(self, old: ReservationModel) -> bool:
        """A reservation stored before the ledger, as the ledger's line 1 of its order (its
        units in PRINCIPAL), and off the old table's indexes: one transaction, made once."""
        units = {PRINCIPAL_ID: int(old.cantidad)}
        line = LedgerModel(
            cause(ORDER_CAUSE, int(old.pedido_id)),
            1,
            pedido_id=int(old.pedido_id),
            producto_id=int(old.producto_id),
            cantidad=int(old.cantidad),
            status=old.status,
            desde=old.desde,
            cambio=old.cambio,
            asignaciones=units,
            retenidas=units if old.status == HELD else {},
            retiradas=units if old.status == HANDED_OVER else {},
        )
        if old.status == HELD:
            line.retiene = int(old.producto_id)
            line.retiene_shard = shards.key(HOLDING, int(old.pedido_id), HOLDING_SHARDS)
        r = ReservationModel
        try:
            with TransactWrite(connection=self._connection) as tx:
                tx.save(line, condition=LedgerModel.causa.does_not_exist())
                tx.update(
                    r(int(old.pedido_id)),
                    actions=[
                        r.retiene.remove(),
                        r.retiene_shard.remove(),
                        r.expira.set(int(time.time()) + KEEP_DONE_SECONDS),
                    ],
                    condition=(r.status == old.status) & (r.cambio == old.cambio),
                )
        except TransactWriteError:
            return False  # carried meanwhile (or changed: read again)
        return True

    def holding(self, producto_id: int) -> list[Holding]:
        """The units of the product the orders' lines hold, by warehouse, in ascending
        pedidoId."""
        lines = [line_of(item) for item in LedgerModel.by_product.query(producto_id)]
        return [h for line in lines for h in holdings(line)]

    def holding_page(self, after: int, limit: int) -> Page:
        """A page of the reservations holding units, in ascending pedidoId, each whole."""
        page = merged_page(
            LedgerModel.holding,
            LedgerModel.pedido_id,
            shards.keys(HOLDING, HOLDING_SHARDS),
            after,
            limit,
            id_of=lambda item: int(item.pedido_id),
        )
        orders: dict[int, list[HeldLine]] = {}
        for item in page.items:
            orders.setdefault(int(item.pedido_id), []).append(line_of(item))
        found = [
            Reservation(pedido_id=ident, lineas=tuple(sorted(lines, key=lambda x: x.linea)))
            for ident, lines in orders.items()
        ]
        if found and page.resume_after is not None:
            # The page may end within the last order's lines: that one is read whole.
            whole = self.reservation(found[-1].pedido_id)
            found[-1:] = [whole] if whole is not None else []
        return Page(found, page.resume_after)

    def products_in(self, bodega_id: int) -> list[Product]:
        """Every product the warehouse holds or held units of (its notes in the ledger)."""
        notes = LedgerModel.query(cause(WAREHOUSE_CAUSE, bodega_id), consistent_read=True)
        return list(self.products(int(note.linea) for note in notes).values())

    def forget(self, bodega_id: int, products: Iterable[Product]) -> None:
        """A deleted warehouse's notes and empty rows, gone (best effort: a row left is
        not shown, its warehouse being gone)."""
        for product in products:
            row = product.row(bodega_id)
            if row is not None and not row.holds_units:
                try:
                    ProductModel(product.id).update(
                        actions=[row_path(bodega_id).remove()],
                        condition=(row_path(bodega_id, ACTUAL) == 0)
                        & (row_path(bodega_id, RESERVED) == 0),
                    )
                except UpdateError as exc:
                    if not storage.condition_failed(exc):
                        raise
            LedgerModel(cause(WAREHOUSE_CAUSE, bodega_id), product.id).delete()
