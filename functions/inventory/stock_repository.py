"""The units orders hold, in DynamoDB (docs/api.md#stock-follows-orders,
docs/api.md#orders-of-several-lines): each stock move of an order is one transaction of
its lines in the stock ledger and their products' counters, per warehouse.

An order's lines are keyed by (order, line), so a move is done once however often it is
asked (a retry, a second delivery, a repair): each line's condition is its state as
read, and when the transaction is refused the move reads the lines back to tell "already
done" (not applied) from "not possible" (a domain error). The lines move together: the
transaction holds them all or none, so no reader ever sees an order half reserved.

An approval is planned, then committed (inventory.allocation): from a plain read of its
products it picks, per line, the warehouses its units come from, then writes every line
and every product in one transaction whose conditions check every count again
(`existencias.<w>.disponible >= n`); if another write took the units meanwhile it plans
again, a bounded number of times. An order names a product once, so a transaction holds
each product item once whatever the number of warehouses: at most 50 lines and 50
products, the 100 items DynamoDB allows (docs/architecture.md).

A take-out changes the stock by arithmetic too, on the condition that the stock is still
on the side of the threshold it read (only a move that crossed it meanwhile reads again),
and that each warehouse has the units on hand: a recount may leave fewer than the orders
hold, and no count goes below zero (INSUFFICIENT_STOCK; the order stays APROBADO).
"""

from collections.abc import Callable, Container, Iterable
from dataclasses import replace
from typing import Any

from pynamodb.exceptions import DoesNotExist, TransactWriteError, UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.operand import Path
from pynamodb.transactions import TransactWrite

from common.platform.errors import Conflict, NotFound, invalid_fields
from common.platform.settings import Cloud
from common.stock.moves import (
    FROM,
    GIVE_BACK,
    HANDED_OVER,
    HELD,
    PUT_BACK,
    RELEASED,
    RESERVE,
    RESTOCK_DIFFERS,
    TAKE_OUT,
    TO,
)
from common.stock.product_model import row_map
from common.stock.records import PRINCIPAL_ID, Product, StockRow, Warehouse
from common.storage import tables as storage
from inventory import allocation, rules
from inventory.ledger_repository import (
    ProductChange,
    StockItems,
    add_change,
    alert_mark,
    conflicted,
    done_keys,
    held_item,
    holding_keys,
    line_of,
    pause,
    puts_units,
    row_path,
)
from inventory.model import (
    ORDER_CAUSE,
    RETURN_CAUSE,
    LedgerModel,
    ProductModel,
    WarehouseModel,
    cause,
    product_of,
)
from inventory.rules import (
    HeldLine,
    Moved,
    Reservation,
    ReserveRequest,
    changed_since,
    not_held,
    product_gone,
)

# Rounds of a write whose items another write changed between its read and its own:
# each reads and plans again. An approval loses a round only when a warehouse it planned
# on ran out meanwhile, or when DynamoDB cancels it for a transaction on the same items
# at the same moment: each round some other write was made.
MAX_ATTEMPTS = 12


def _kept_changing(what: str) -> Conflict:
    return Conflict("CONCURRENT_UPDATE", f"{what} kept changing; retry")


def _absent(ids: list[int], field: str, noun: str, present: Container[int]) -> list[dict]:
    """The error details naming each line (by its place) whose id is not `present`."""
    return [
        {"field": f"lineas[{index}].{field}", "message": f"{noun} {id_} does not exist"}
        for index, id_ in enumerate(ids)
        if id_ not in present
    ]


def _as_read(line: HeldLine) -> Condition:
    """The condition that a line is still as it was read."""
    m = LedgerModel
    return (m.status == line.status) & (m.cambio == line.cambio)


class StockRepository(StockItems):
    def __init__(self, cloud: Cloud):
        super().__init__(cloud)

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
        self, request: ReserveRequest, force: bool = False, seen: str | None = None
    ) -> Moved:
        """Hold the order's units (again, if they were given back), every line or none.
        Only from units available, unless `force` (a repair of an order already approved:
        the units are its, whatever is left). INSUFFICIENT_STOCK, or PRODUCT_NOT_FOUND,
        when it may not.

        An order's first approval reads its products alone: its lines are written on the
        condition that they are not there (or given back); only when that fails, or the
        plan finds too few units, are they read, to tell a retry (held already) from a
        refusal. A repair's (`seen`) reads them first."""
        known = seen is not None  # whether `current` is the reservation as read
        current = self._as_seen(request.pedido_id, seen) if known else None
        for attempt in range(MAX_ATTEMPTS):
            if current is not None and current.status == TO[RESERVE]:
                if self._claimed(current, request.desde):
                    return Moved(False, current)
                current = self._as_seen(request.pedido_id, seen)
                continue
            if current is not None and current.status not in FROM[RESERVE]:
                raise not_held(request.pedido_id, current.status)
            found, products = self._plan(request, force)
            if not found.feasible and not known:
                current, known = self.reservation(request.pedido_id), True
                continue  # held already (a retry)? else refused below
            if found.missing:
                raise product_gone(found.missing[0])
            if found.short:
                raise rules.insufficient_stock(found.short)
            try:
                held = self._write_reservation(request, current, found.assigned, products, force)
            except TransactWriteError as exc:
                if conflicted(exc):
                    pause(attempt)
                # a count or a line changed since read: read and plan again
                current, known = self._as_seen(request.pedido_id, seen), True
                continue
            return Moved(True, held)
        raise _kept_changing(f"Order {request.pedido_id}'s stock")

    def _plan(
        self, request: ReserveRequest, force: bool
    ) -> tuple[allocation.Plan, dict[int, Product]]:
        """Where each line's units would come from, as its products are now. The
        warehouses' priorities are read only when some line has a choice."""
        products = self.products(line.producto_id for line in request.lineas)
        pinned = [line.bodega_id for line in request.lineas if line.bodega_id]
        choice = pinned or any(
            sum(row.stock_disponible > 0 for row in p.existencias) > 1 for p in products.values()
        )
        if choice:
            warehouses = self.warehouses_of(products.values(), pinned)
        else:
            warehouses = _as_ranked(products.values())
        return allocation.plan(
            request.lineas, products, warehouses, request.estrategia, force
        ), products

    def _write_reservation(
        self,
        request: ReserveRequest,
        current: Reservation | None,
        assigned: dict[int, dict[int, int]],
        products: dict[int, Product],
        force: bool,
    ) -> Reservation:
        m = LedgerModel
        before = {line.linea: line for line in current.lineas} if current else {}
        lines = []
        with TransactWrite(connection=self._connection) as tx:
            for asked in request.lineas:
                units = assigned[asked.linea]
                line = HeldLine(
                    pedido_id=request.pedido_id,
                    linea=asked.linea,
                    producto_id=asked.producto_id,
                    cantidad=asked.cantidad,
                    status=HELD,
                    desde=request.desde,
                    cambio=request.desde,
                    asignaciones=units,
                    retenidas=units,
                )
                lines.append(line)
                old = before.get(asked.linea)
                new = m.causa.does_not_exist() | (m.status == RELEASED)  # a first approval
                # The line written whole (a put, not an update): everything it held before
                # is what a reservation sets anew or clears, and an item written whole is
                # billed by its size alone.
                tx.save(held_item(line), condition=new if old is None else _as_read(old))
                change = ProductChange(products[asked.producto_id])
                for bodega, quantity in units.items():
                    change.move(bodega, reserved=quantity)
                    if not force:
                        change.needs_available[bodega] = quantity
                add_change(tx, change, request.desde)
        return Reservation(pedido_id=request.pedido_id, lineas=tuple(lines))

    def give_back(self, pedido_id: int, now: str, seen: str | None = None) -> Moved:
        """Release the order's units (a cancel), each to its warehouse; not applied when
        they were given back already; RESERVATION_NOT_HELD when they are not held (taken
        out, or never reserved)."""
        return self._move_all(pedido_id, now, seen, GIVE_BACK)

    def take_out(self, pedido_id: int, now: str, seen: str | None = None) -> Moved:
        """The order's units leave their warehouses (its own move to EN_ENVIO):
        stockActual and stockReservado both go down, in each warehouse and in all."""
        return self._move_all(pedido_id, now, seen, TAKE_OUT)

    def put_back(self, pedido_id: int, now: str, seen: str | None = None) -> Moved:
        """Undo a take-out whose order then lost its move: the units are held again, in
        the warehouses they left."""
        return self._move_all(pedido_id, now, seen, PUT_BACK)

    def take_part(
        self, pedido_id: int, envio_id: int, bodega_id: int, parts: dict[int, int], now: str
    ) -> tuple[bool, bool]:
        """A shipment's units (`parts`: units by line) leave `bodega_id`: the lines hold
        that many fewer there, and the warehouse's stockActual and stockReservado go down,
        in one transaction that records the shipment on the first line it carries, so
        asked again it takes nothing more (docs/api.md#shipments-of-parts). Answers
        (applied, whole): `whole` when the order's own take-out had taken every unit
        already (nothing left for the shipment to take). RESERVATION_NOT_HELD when the
        units are not held there (given back); INSUFFICIENT_STOCK when fewer are on hand."""
        first = min(parts)
        for attempt in range(MAX_ATTEMPTS):
            current = self.reservation(pedido_id)
            if current is None:
                raise not_held(pedido_id, None)
            lines = {line.linea: line for line in current.lineas}
            if first in lines and envio_id in lines[first].envios:
                return False, False  # taken before: a retry
            if current.status == HANDED_OVER:
                return False, True
            if current.status != HELD or any(
                linea not in lines or lines[linea].retenidas.get(bodega_id, 0) < units
                for linea, units in parts.items()
            ):
                raise not_held(pedido_id, current.status)
            carried = [lines[linea] for linea in sorted(parts)]
            products = self.products(line.producto_id for line in carried)
            short = [
                rules.short_line(line.linea, line.producto_id, on_hand, on_hand=True)
                for line in carried
                if (on_hand := _on_hand(products.get(line.producto_id), bodega_id))
                < parts[line.linea]
            ]
            if short:
                raise rules.insufficient_stock(short, on_hand=True)
            try:
                self._write_part(carried, products, envio_id, bodega_id, parts, now)
            except TransactWriteError as exc:
                if conflicted(exc):
                    pause(attempt)
                continue  # the lines or the products' stock changed: read again
            return True, False
        raise _kept_changing(f"Order {pedido_id}'s stock")

    def _write_part(
        self,
        carried: list[HeldLine],
        products: dict[int, Product],
        envio_id: int,
        bodega_id: int,
        parts: dict[int, int],
        now: str,
    ) -> None:
        """One transaction: each line holding its units fewer (the first one noting the
        shipment), each product's counters down by them, on the lines as read."""
        m = LedgerModel
        first = min(parts)
        with TransactWrite(connection=self._connection) as tx:
            for line in carried:
                units = parts[line.linea]
                left = line.retenidas[bodega_id] - units
                there = Path(["retenidas", str(bodega_id)])
                actions: list[Any] = [m.cambio.set(now)]
                actions.append(there.set(left) if left else there.remove())
                if not left and set(line.retenidas) == {bodega_id}:
                    actions += [m.retiene.remove(), m.retiene_shard.remove()]
                if line.linea == first:
                    actions.append(m.envios.add({envio_id}))
                tx.update(
                    m(cause(ORDER_CAUSE, line.pedido_id), line.linea),
                    actions=actions,
                    condition=_as_read(line),
                )
                change = ProductChange(products[line.producto_id])
                _units_moved(change, TAKE_OUT, bodega_id, units)
                add_change(tx, change, now)

    def _move_all(self, pedido_id: int, now: str, seen: str | None, move: str) -> Moved:
        for attempt in range(MAX_ATTEMPTS):
            current = self._as_seen(pedido_id, seen)
            if current is not None and current.status == TO[move]:
                if self._claimed(current, now):
                    return Moved(False, current)
                continue
            if current is None or current.status not in FROM[move]:
                raise not_held(pedido_id, current.status if current else None)
            products = self.products(line.producto_id for line in current.lineas)
            gone = [line.producto_id for line in current.lineas if line.producto_id not in products]
            if gone:
                raise product_gone(gone[0])
            if move == TAKE_OUT:
                self._check_on_hand(current, products)
            try:
                moved = self._write_move(current, products, now, move)
            except TransactWriteError as exc:
                if conflicted(exc):
                    pause(attempt)
                continue  # the lines or the products' stock changed: read again
            return Moved(True, moved)
        raise _kept_changing(f"Order {pedido_id}'s stock")

    @staticmethod
    def _check_on_hand(current: Reservation, products: dict[int, Product]) -> None:
        """stockActual never goes negative: in no warehouse may a take-out take more than
        is on hand (a recount may have found fewer than the orders hold)."""
        short = []
        for line in current.lineas:
            product = products[line.producto_id]
            for bodega, units in line.retenidas.items():
                row = product.row(bodega)
                on_hand = row.stock_actual if row else 0
                if on_hand < units:
                    short.append(
                        rules.short_line(line.linea, line.producto_id, on_hand, on_hand=True)
                    )
        if short:
            raise rules.insufficient_stock(short, on_hand=True)

    def _write_move(
        self, current: Reservation, products: dict[int, Product], now: str, move: str
    ) -> Reservation:
        m = LedgerModel
        moved = []
        with TransactWrite(connection=self._connection) as tx:
            for line in current.lineas:
                actions, after = _line_after(line, move, now)
                moved.append(after)
                tx.update(
                    m(cause(ORDER_CAUSE, line.pedido_id), line.linea),
                    actions=[m.status.set(after.status), m.cambio.set(now), *actions],
                    condition=_as_read(line),
                )
                change = ProductChange(products[line.producto_id])
                units = line.retiradas if move == PUT_BACK else line.retenidas
                for bodega, quantity in units.items():
                    _units_moved(change, move, bodega, quantity)
                add_change(tx, change, now)
        return Reservation(pedido_id=current.pedido_id, lineas=tuple(moved))

    def _as_seen(self, pedido_id: int, seen: str | None) -> Reservation | None:
        """The reservation now; RESERVATION_CHANGED when a repair read it otherwise."""
        current = self.reservation(pedido_id)
        if seen is not None and (current is None or current.cambio != seen):
            raise changed_since(pedido_id)
        return current

    def _claimed(self, current: Reservation, now: str) -> bool:
        """A move found made before (a retry): the reservation claimed for it (its first
        line's `cambio` set anew), so that a repair that read it before this changes
        nothing of it; False when it is no longer in that state (moved meanwhile: the
        move decides again)."""
        m = LedgerModel
        head = current.head
        try:
            m(cause(ORDER_CAUSE, head.pedido_id), head.linea).update(
                actions=[m.cambio.set(now)], condition=m.status == head.status
            )
        except UpdateError as exc:
            if storage.condition_failed(exc):
                return False
            raise
        return True

    # -- counts and transfers (docs/api.md#stock-per-warehouse) -----------------------------

    def set_count(self, producto_id: int, bodega_id: int, actual: int, now: str) -> Product:
        """A warehouse's count of the product set (a receipt, a recount): what it holds
        reserved stays, so what is available there may go negative."""

        def change(product: Product) -> ProductChange:
            row = product.row(bodega_id)
            moved = ProductChange(product)
            moved.move(bodega_id, actual=actual - (row.stock_actual if row else 0))
            if row is not None:
                moved.exact_rows[bodega_id] = row.stock_actual  # unchanged since read
            return moved

        return self._write_product(producto_id, now, change, into=bodega_id)

    def transfer(
        self, producto_id: int, desde: int, hacia: int, cantidad: int, now: str
    ) -> Product:
        """Available units moved from one warehouse to another, in one write;
        INSUFFICIENT_STOCK (nothing moves) when `desde` has fewer available."""

        def change(product: Product) -> ProductChange:
            row = product.row(desde)
            available = row.stock_disponible if row else 0
            if available < cantidad:
                raise rules.transfer_short(product.id, desde, available)
            moved = ProductChange(product)
            moved.move(desde, actual=-cantidad)
            moved.move(hacia, actual=cantidad)
            moved.needs_available[desde] = cantidad
            return moved

        return self._write_product(producto_id, now, change, into=hacia)

    def _write_product(
        self,
        producto_id: int,
        now: str,
        change: Callable[[Product], ProductChange],
        into: int,
    ) -> Product:
        for attempt in range(MAX_ATTEMPTS):
            product = self.product(producto_id)
            if product is None:
                raise rules.unknown_product(producto_id)
            moved = change(product)
            try:
                with TransactWrite(connection=self._connection) as tx:
                    add_change(tx, moved, now, exact=True)
                    puts_units(tx, producto_id, into)
            except TransactWriteError as exc:
                if conflicted(exc):
                    pause(attempt)
                self._warehouse_open(into)
                continue  # the product changed since read: read it again
            after = self.product(producto_id)
            assert after is not None  # written just now; a delete meanwhile is a 404 above
            return after
        raise _kept_changing(f"Product {producto_id}")

    # -- a return's units back (docs/api.md#returns) ---------------------------------------

    def restock(self, devolucion_id: int, lines: tuple[rules.Restocked, ...], now: str) -> bool:
        """A return's units put back into their warehouses' `stockActual`, and its record
        in the ledger, in one transaction on the condition that the record is not there:
        True when this call made it, False when it was made before with the same units (a
        retry); RESTOCK_DIFFERS when it was made with other units. An unknown warehouse is
        400, a product deleted since 404 naming every such line, and nothing moves."""
        known = self.warehouses(line.bodega_id for line in lines)
        unknown = _absent([line.bodega_id for line in lines], "bodegaId", "warehouse", known)
        if unknown:
            raise invalid_fields(unknown)
        mark = rules.restock_mark(lines)
        for attempt in range(MAX_ATTEMPTS):
            done = self._restocked(devolucion_id)
            if done is not None:
                if done != mark:
                    raise Conflict(
                        RESTOCK_DIFFERS,
                        f"Return {devolucion_id} was restocked with other units",
                    )
                return False
            products = self.products(line.producto_id for line in lines)
            gone = _absent([line.producto_id for line in lines], "productoId", "product", products)
            if gone:
                raise NotFound("PRODUCT_NOT_FOUND", "Products not found", details=gone)
            changes: dict[int, ProductChange] = {}
            for line in lines:
                change = changes.setdefault(
                    line.producto_id, ProductChange(products[line.producto_id])
                )
                change.move(line.bodega_id, actual=line.cantidad)
            try:
                with TransactWrite(connection=self._connection) as tx:
                    tx.save(
                        LedgerModel(cause(RETURN_CAUSE, devolucion_id), 0, desde=now, cambio=mark),
                        condition=LedgerModel.causa.does_not_exist(),
                    )
                    for change in changes.values():
                        add_change(tx, change, now)
                    for line in lines:
                        puts_units(tx, line.producto_id, line.bodega_id)
            except TransactWriteError as exc:
                if conflicted(exc):
                    pause(attempt)
                for line in lines:
                    self._warehouse_open(line.bodega_id)
                continue  # restocked meanwhile, or a product crossed its threshold: again
            return True
        raise _kept_changing(f"Return {devolucion_id}'s restock")

    @staticmethod
    def _restocked(devolucion_id: int) -> str | None:
        """What the return's restock put back, as recorded; None before it was made."""
        try:
            item = LedgerModel.get(cause(RETURN_CAUSE, devolucion_id), 0, consistent_read=True)
        except DoesNotExist:
            return None
        return item.cambio or ""

    def _warehouse_open(self, bodega_id: int) -> None:
        """After a refused write into a warehouse: gone (404), or closing (409)."""
        if bodega_id == PRINCIPAL_ID:
            return
        try:
            item = WarehouseModel.get(bodega_id, consistent_read=True)
        except DoesNotExist:
            raise rules.unknown_warehouse(bodega_id) from None
        if item.cerrando is not None:
            raise rules.warehouse_closing(bodega_id)


def _as_ranked(products: Iterable[Product]) -> dict[int, Warehouse]:
    """The warehouses of the products' rows, all of one rank: where each line has one
    warehouse to take from, their priorities choose nothing."""
    return {
        row.bodega_id: Warehouse(
            id=row.bodega_id, codigo="", nombre="", region=None, prioridad=0, creado_en=""
        )
        for p in products
        for row in p.existencias
    }


def _on_hand(product: Product | None, bodega_id: int) -> int:
    row = product.row(bodega_id) if product is not None else None
    return row.stock_actual if row else 0


def _line_after(line: HeldLine, move: str, now: str) -> tuple[list, HeldLine]:
    """What a move writes of a line beside its state, and the line after it."""
    m = LedgerModel
    if move == GIVE_BACK:
        after = replace(line, status=RELEASED, cambio=now, retenidas={})
        return [m.retenidas.remove(), *done_keys()], after
    if move == TAKE_OUT:
        after = replace(
            line, status=HANDED_OVER, cambio=now, retenidas={}, retiradas=line.retenidas
        )
        return [m.retiradas.set(line.retenidas), m.retenidas.remove(), *done_keys()], after
    after = replace(line, status=HELD, cambio=now, retenidas=line.retiradas, retiradas={})
    return [m.retenidas.set(line.retiradas), m.retiradas.remove(), *holding_keys(after)], after


def _units_moved(change: ProductChange, move: str, bodega: int, quantity: int) -> None:
    """A move's change of one warehouse's counters by one line's units there."""
    if move == GIVE_BACK:
        change.move(bodega, reserved=-quantity)
    elif move == TAKE_OUT:
        change.move(bodega, actual=-quantity, reserved=-quantity)
        change.needs_on_hand[bodega] = change.needs_on_hand.get(bodega, 0) + quantity
    else:  # PUT_BACK
        change.move(bodega, actual=quantity, reserved=quantity)


class Balance(StockItems):
    """The invariant check (docs/api.md#stock-per-warehouse): a slice of the catalog's
    counters against the ledger, and what differs put right."""

    def page(
        self, shard: int, after: int, limit: int, settled_before: str, now: str
    ) -> tuple[list[dict], int | None]:
        """What differs among the products of one byShard partition after id `after` (at
        most `limit`), each put right; and where the next page starts. A product whose
        units moved after `settled_before` is left to a later round: a move of it may be
        on its way into the indexes the check reads."""
        keys = ProductModel.by_shard.query(
            shard, ProductModel.id > after, limit=limit, page_size=limit
        )
        idents = [int(key.id) for key in keys]
        resume = keys.last_evaluated_key
        items = ProductModel.batch_get(idents, consistent_read=True) if idents else []
        found: list[dict] = []
        for item in items:
            if item.existencias is None or (item.movido or "") > settled_before:
                continue  # stored before warehouses (its first stock write carries it), or moving
            product = product_of(item)
            held = rules.held_units([line_of(i) for i in LedgerModel.by_product.query(product.id)])
            stored = int(item.stock_disponible) if item.stock_disponible is not None else None
            differs = rules.drift(product, held, stored)
            if differs and self._put_right(item, product, held, now):
                found.extend(differs)
        return found, int(resume["id"]["N"]) if resume else None

    @staticmethod
    def _put_right(item: ProductModel, product: Product, held: dict[int, int], now: str) -> bool:
        """The counters as the ledger says, on the condition that no move changed them
        since read; False when one did (the next round looks again)."""
        p = ProductModel
        actual = {row.bodega_id: row.stock_actual for row in product.existencias}
        actions: list[Any] = []
        for bodega in sorted(set(actual) | set(held)):
            row = StockRow(
                bodega_id=bodega,
                stock_actual=actual.get(bodega, 0),
                stock_reservado=held.get(bodega, 0),
            )
            actions.append(row_path(bodega).set({"M": row_map(row)}))
        total, reserved = sum(actual.values()), sum(held.values())
        mark = alert_mark(product.id, total, product.umbral_minimo)
        actions += [
            p.stock_actual.set(total),
            p.stock_reservado.set(reserved),
            p.stock_disponible.set(total - reserved),
            p.en_alerta.set(mark) if mark else p.en_alerta.remove(),
            p.movido.set(now),
        ]
        unmoved = (p.movido == item.movido) if item.movido else p.movido.does_not_exist()
        try:
            ProductModel(product.id).update(actions=actions, condition=unmoved & p.id.exists())
        except UpdateError as exc:
            if storage.condition_failed(exc):
                return False
            raise
        return True
