"""In-memory stand-ins for what the use cases are given: repositories and a publisher.

Each repository keeps the same promises as its DynamoDB twin (ids from a counter, the
same domain errors, sku uniqueness); tests/integration/test_repository_contracts.py
runs one suite against both, so a fake cannot drift from the real thing unnoticed.
"""

import dataclasses
import itertools
import threading

from common.orders.records import TrackingEvent
from common.orders.tracking_model import key_of
from common.platform.errors import Conflict
from common.platform.history import Entry, newest
from common.platform.ids import possible_id
from common.stock import moves as stock
from common.stock.client import (
    InventoryUnavailable,
    NotHeld,
    ReservationChanged,
    StockAnswer,
    line_body,
    moved_of,
)
from common.stock.client import Moved as ClientMoved
from common.stock.records import PRINCIPAL_ID, StockRow, principal
from common.storage.paging import Page
from inventory import allocation
from inventory import rules as inventory_rules
from inventory.rules import Moved, Product, duplicate_sku, in_alert, unknown_product
from orders.rules import Order, StatusChanged, unknown_order
from shipping.carriers import duplicate_code
from shipping.repository import Moved as ShipmentMoved
from shipping.rules import Shipment, unknown_shipment
from shipping.tracking import applied, new_code


class _InMemory:
    """Entities by id, with a counter; one lock makes each verb atomic, as DynamoDB is."""

    def __init__(self, unknown):
        self._items: dict[int, object] = {}
        self._ids = itertools.count(1)
        self._unknown = unknown
        self._lock = threading.RLock()

    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def get(self, ident: int):
        with self._lock:
            if not possible_id(ident) or ident not in self._items:
                raise self._unknown(ident)
            return self._items[ident]

    def page(self, after: int, limit: int, **filters) -> Page:
        """Ascending ids after `after`; `filters` keep the items whose field of that name
        has that value (None: any)."""
        return self._page(
            after,
            limit,
            lambda item: all(
                value is None or getattr(item, name) == value for name, value in filters.items()
            ),
        )

    def _page(self, after: int, limit: int, keep) -> Page:
        with self._lock:
            matching = [
                self._items[i] for i in sorted(self._items) if i > after and keep(self._items[i])
            ]
        taken = matching[:limit]
        return Page(taken, taken[-1].id if len(matching) > limit else None)

    def add(self, entity) -> None:
        with self._lock:
            assert entity.id not in self._items, "an id was handed out twice"
            self._items[entity.id] = entity


class InMemoryProducts(_InMemory):
    def __init__(self):
        super().__init__(unknown_product)

    def _owner_of(self, sku: str) -> int | None:
        return next((p.id for p in self._items.values() if p.sku == sku), None)

    def add(self, product: Product, bodega_id: int = PRINCIPAL_ID) -> None:
        with self._lock:
            if self._owner_of(product.sku) is not None:
                raise duplicate_sku(product.sku)
            row = StockRow(bodega_id=bodega_id, stock_actual=product.stock_actual)
            super().add(dataclasses.replace(product, existencias=(row,)))

    def several(self, idents) -> dict[int, Product]:
        with self._lock:
            return {i: self._items[i] for i in idents if i in self._items}

    def replace(self, product: Product) -> Product:
        """Every field a client sets; the units reserved and the rows are kept, a new
        stockActual is the one warehouse's holding units (inventory.repository)."""
        with self._lock:
            if product.id not in self._items:
                raise unknown_product(product.id)
            if self._owner_of(product.sku) not in (None, product.id):
                raise duplicate_sku(product.sku)
            current = self._items[product.id]
            rows = current.existencias
            if product.stock_actual != current.stock_actual:
                holding = [row for row in rows if row.holds_units]
                if len(holding) > 1:
                    bodegas = [row.bodega_id for row in holding]
                    raise inventory_rules.stock_in_several_warehouses(product.id, bodegas)
                target = holding[0].bodega_id if holding else PRINCIPAL_ID
                change = product.stock_actual - current.stock_actual
                rows = _moved_rows(rows, target, change, 0)
            self._items[product.id] = dataclasses.replace(
                product, stock_reservado=current.stock_reservado, existencias=rows
            )
            return self._items[product.id]

    def counted(self, product_id: int, bodega_id: int, actual: int, reserved: int) -> None:
        """The stock moves' change of a product's units in one warehouse (InMemoryStock)."""
        with self._lock:
            current = self._items[product_id]
            self._items[product_id] = dataclasses.replace(
                current,
                stock_actual=current.stock_actual + actual,
                stock_reservado=current.stock_reservado + reserved,
                existencias=_moved_rows(current.existencias, bodega_id, actual, reserved),
            )

    def alerts_page(self, after: int, limit: int) -> Page:
        return self._page(after, limit, in_alert)

    def remove(self, product_id: int) -> None:
        with self._lock:
            if product_id not in self._items:
                raise unknown_product(product_id)
            if self._items[product_id].stock_reservado > 0:
                raise inventory_rules.product_reserved(self._items[product_id])
            del self._items[product_id]


def _moved_rows(rows, bodega_id: int, actual: int, reserved: int) -> tuple:
    """A product's rows with one warehouse's moved by these units (made when it has none)."""
    found = {row.bodega_id: row for row in rows}
    row = found.get(bodega_id, StockRow(bodega_id=bodega_id, stock_actual=0))
    found[bodega_id] = StockRow(
        bodega_id=bodega_id,
        stock_actual=row.stock_actual + actual,
        stock_reservado=row.stock_reservado + reserved,
    )
    return tuple(found[b] for b in sorted(found))


class InMemoryWarehouses(_InMemory):
    """Warehouses (inventory.warehouse_repository): PRINCIPAL from the start, codes unique."""

    def __init__(self):
        super().__init__(inventory_rules.unknown_warehouse)
        self._items[PRINCIPAL_ID] = principal("t0")
        self._ids = itertools.count(PRINCIPAL_ID + 1)
        self.closing: dict[int, str] = {}

    def several(self, idents) -> dict:
        with self._lock:
            return {i: self._items[i] for i in idents if i in self._items}

    def add(self, warehouse) -> None:
        with self._lock:
            if any(w.codigo == warehouse.codigo for w in self._items.values()):
                raise inventory_rules.duplicate_code(warehouse.codigo)
            super().add(warehouse)

    def replace(self, warehouse):
        with self._lock:
            self.get(warehouse.id)
            self._items[warehouse.id] = warehouse
            return warehouse

    def close(self, ident: int, now: str) -> None:
        with self._lock:
            self.get(ident)
            self.closing[ident] = now

    def reopen(self, ident: int, closed_at: str) -> None:
        with self._lock:
            if self.closing.get(ident) == closed_at:
                del self.closing[ident]

    def remove(self, ident: int, closed_at: str) -> None:
        with self._lock:
            if self.closing.pop(ident, None) == closed_at:
                del self._items[ident]


class InMemoryOrders(_InMemory):
    def __init__(self):
        super().__init__(unknown_order)
        self.pending: set[int] = set()  # orders whose event is still to be published
        self._changes: dict[int, list[Entry]] = {}

    def add(self, entity) -> None:
        with self._lock:
            super().add(entity)
            self.pending.add(entity.id)  # the outbox: pending from the save on

    def pending_events(self, limit: int) -> list[Order]:
        with self._lock:
            return [self._items[i] for i in sorted(self.pending)[:limit]]

    def event_published(self, order_id: int) -> None:
        with self._lock:
            self.pending.discard(order_id)

    def page(
        self, after: int, limit: int, status: str | None = None, user_id: int | None = None
    ) -> Page:
        return super().page(after, limit, status=status, user_id=user_id)

    def set_status(self, order: Order, target: str, change: Entry, lines=None) -> Order:
        with self._lock:
            current = self._items.get(order.id)
            if current is None or current.status != order.status:
                raise StatusChanged(order.id)
            kept = {"lineas": lines} if lines is not None else {}
            self._items[order.id] = dataclasses.replace(current, status=target, **kept)
            self._changes.setdefault(order.id, []).append(change)
            return self._items[order.id]

    def history(self, order_id: int) -> tuple[Order, list[Entry]]:
        with self._lock:
            return self.get(order_id), list(self._changes.get(order_id, []))

    def all_on_their_way(self, order: Order) -> None:
        with self._lock:
            current = self._items[order.id]
            if current.status == "EN_ENVIO":
                lines = tuple(
                    dataclasses.replace(line, cantidad_enviada=line.cantidad)
                    for line in current.lineas
                )
                self._items[order.id] = dataclasses.replace(current, lineas=lines)


class InMemoryShipments(_InMemory):
    def __init__(self):
        super().__init__(unknown_shipment)
        self._changes: dict[int, list[Entry]] = {}
        self._events: dict[int, dict[str, TrackingEvent]] = {}
        self._codes: dict[str, int] = {}
        self._event_ids = itertools.count(1)
        self._due: set[int] = set()

    def page(
        self,
        after: int,
        limit: int,
        status: str | None = None,
        pedido_id: int | None = None,
        owner_id: int | None = None,
    ) -> Page:
        return super().page(after, limit, status=status, pedido_id=pedido_id, owner_id=owner_id)

    def add(self, entity):
        with self._lock:
            code = entity.codigo_seguimiento or new_code()
            while code in self._codes:
                code = new_code()
            stored = dataclasses.replace(entity, codigo_seguimiento=code)
            super().add(stored)
            self._codes[code] = entity.id
            self._due.add(entity.id)
            return stored

    def move(self, shipment_id, decide, change_of, event=None, seen=None) -> ShipmentMoved:
        with self._lock:
            before = self.get(shipment_id)
            step = decide(before)
            if step is None:
                return ShipmentMoved(before, before, None)
            if event is not None:
                events = self._events.setdefault(shipment_id, {})
                key = key_of(event.id, event.id_externo)
                if key in events:
                    return ShipmentMoved(before, before, None, events[key], repeated=True)
                if event.detalle is not None and before.destino is None:
                    event = dataclasses.replace(event, detalle=None)
                events[key] = event
            after = applied(before, step)
            self._items[shipment_id] = after
            if step.status is not None:
                kept = [*self._changes.get(shipment_id, []), change_of(step.status)]
                self._changes[shipment_id] = newest(kept)
            return ShipmentMoved(before, after, step, event)

    def history(self, shipment_id: int) -> tuple[Shipment, list[Entry]]:
        with self._lock:
            return self.get(shipment_id), list(self._changes.get(shipment_id, []))

    def next_event_id(self) -> int:
        with self._lock:
            return next(self._event_ids)

    def events(self, shipment_id: int) -> list[TrackingEvent]:
        with self._lock:
            return list(self._events.get(shipment_id, {}).values())

    def by_code(self, code: str) -> Shipment | None:
        with self._lock:
            ident = self._codes.get(code)
            return self._items.get(ident) if ident is not None else None

    def due(self, now: str, limit: int) -> list[int]:
        with self._lock:
            return sorted(i for i in self._due if self._items[i].fecha_estimada_entrega <= now)

    def checked(self, shipment_id: int, now: str) -> bool:
        with self._lock:
            self._due.discard(shipment_id)
            current = self._items.get(shipment_id)
            if current is None or current.status == "ENTREGADO" or current.atraso_avisado:
                return False
            self._items[shipment_id] = dataclasses.replace(current, atraso_avisado=now)
            return True


class InMemoryCarriers:
    """Carriers by code, their secrets kept as given (the vault's sealing is DynamoDB's
    twin's business)."""

    def __init__(self):
        self._carriers: dict[str, tuple] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def add(self, carrier, secret: str) -> None:
        with self._lock:
            if carrier.codigo in self._carriers:
                raise duplicate_code(carrier.codigo)
            self._carriers[carrier.codigo] = (carrier, secret)

    def signing(self, codigo: str):
        with self._lock:
            return self._carriers.get(codigo)


class InMemoryLookups:
    """Every look-up let through, counted by address."""

    def __init__(self):
        self.taken: list[str] = []

    def take(self, address: str) -> None:
        self.taken.append(address)


class InMemoryStock:
    """The inventory's stock moves (inventory.stock_repository), over InMemoryProducts:
    each keyed by its order, its lines moving together, so none is made twice; an
    approval planned by the inventory's own allocation (inventory.allocation)."""

    def __init__(self, products: InMemoryProducts, warehouses: dict | None = None):
        self.products = products
        self.warehouses = warehouses or {PRINCIPAL_ID: principal("t0")}
        self._reservations: dict[int, inventory_rules.Reservation] = {}
        self._lock = products._lock

    def reservation(self, pedido_id: int) -> inventory_rules.Reservation | None:
        return self._reservations.get(pedido_id)

    def holding(self, producto_id: int) -> list[inventory_rules.Holding]:
        return [
            held
            for _, r in sorted(self._reservations.items())
            for line in r.lineas
            if line.producto_id == producto_id and line.status == stock.HELD
            for held in inventory_rules.holdings(line)
        ]

    def holding_page(self, after: int, limit: int) -> Page:
        held = [
            r for i, r in sorted(self._reservations.items()) if i > after and r.status == stock.HELD
        ]
        return Page(held[:limit], held[limit - 1].pedido_id if len(held) > limit else None)

    def reserve(self, request: inventory_rules.ReserveRequest, force: bool = False, seen=None):
        with self._lock:
            current = self._as_seen(request.pedido_id, seen)
            if current is not None and current.status == stock.HELD:
                return self._claim(current, request.desde, applied=False)
            if current is not None and current.status != stock.RELEASED:
                raise inventory_rules.not_held(request.pedido_id, current.status)
            products = self.products.several([line.producto_id for line in request.lineas])
            found = allocation.plan(
                request.lineas, products, self.warehouses, request.estrategia, force
            )
            if found.missing:
                raise inventory_rules.product_gone(found.missing[0])
            if found.short:
                raise inventory_rules.insufficient_stock(found.short)
            lines = []
            for asked in request.lineas:
                units = found.assigned[asked.linea]
                for bodega, quantity in units.items():
                    self.products.counted(asked.producto_id, bodega, 0, quantity)
                lines.append(
                    inventory_rules.HeldLine(
                        pedido_id=request.pedido_id,
                        linea=asked.linea,
                        producto_id=asked.producto_id,
                        cantidad=asked.cantidad,
                        status=stock.HELD,
                        desde=request.desde,
                        cambio=request.desde,
                        asignaciones=units,
                        retenidas=units,
                    )
                )
            held = inventory_rules.Reservation(pedido_id=request.pedido_id, lineas=tuple(lines))
            self._reservations[request.pedido_id] = held
            return Moved(True, held)

    def set_count(self, producto_id: int, bodega_id: int, actual: int, now: str) -> Product:
        with self._lock:
            product = self.products.get(producto_id)
            row = product.row(bodega_id)
            self.products.counted(
                producto_id, bodega_id, actual - (row.stock_actual if row else 0), 0
            )
            return self.products.get(producto_id)

    def transfer(self, producto_id: int, desde: int, hacia: int, cantidad: int, now: str):
        with self._lock:
            row = self.products.get(producto_id).row(desde)
            available = row.stock_disponible if row else 0
            if available < cantidad:
                raise inventory_rules.transfer_short(producto_id, desde, available)
            self.products.counted(producto_id, desde, -cantidad, 0)
            self.products.counted(producto_id, hacia, cantidad, 0)
            return self.products.get(producto_id)

    def products_in(self, bodega_id: int) -> list[Product]:
        with self._lock:
            items = self.products.page(0, 1_000_000).items
            return [p for p in items if p.row(bodega_id) is not None]

    def forget(self, bodega_id: int, products) -> None:
        pass

    def give_back(self, pedido_id: int, now: str, seen=None):
        return self._move(pedido_id, now, seen, stock.GIVE_BACK)

    def take_out(self, pedido_id: int, now: str, seen=None):
        return self._move(pedido_id, now, seen, stock.TAKE_OUT)

    def put_back(self, pedido_id: int, now: str, seen=None):
        return self._move(pedido_id, now, seen, stock.PUT_BACK)

    def _as_seen(self, pedido_id: int, seen: str | None):
        current = self._reservations.get(pedido_id)
        if seen is not None and (current is None or current.cambio != seen):
            raise inventory_rules.changed_since(pedido_id)
        return current

    def _claim(self, current: inventory_rules.Reservation, now: str, applied: bool):
        """A move found made before: claimed for the retry (its `cambio` anew)."""
        head = dataclasses.replace(current.head, cambio=now)
        claimed = dataclasses.replace(current, lineas=(head, *current.lineas[1:]))
        self._reservations[current.pedido_id] = claimed
        return Moved(applied, claimed)

    def _move(self, pedido_id, now, seen, move: str):
        """`move` by the contract's rules (common.stock.moves), each line's units in each
        warehouse: what stockActual and stockReservado change by there."""
        target = stock.TO[move]
        with self._lock:
            current = self._as_seen(pedido_id, seen)
            if current is not None and current.status == target:
                return self._claim(current, now, applied=False)
            if current is None or current.status not in stock.FROM[move]:
                raise inventory_rules.not_held(pedido_id, current.status if current else None)
            if move == stock.TAKE_OUT:
                self._check_on_hand(current)
            moved = tuple(self._moved_line(line, move, now) for line in current.lineas)
            self._reservations[pedido_id] = dataclasses.replace(current, lineas=moved)
            return Moved(True, self._reservations[pedido_id])

    def _check_on_hand(self, current) -> None:
        short = []
        for line in current.lineas:
            product = self.products.get(line.producto_id)
            for bodega, units in line.retenidas.items():
                on_hand = product.row(bodega).stock_actual if product.row(bodega) else 0
                if on_hand < units:
                    short.append(
                        inventory_rules.short_line(
                            line.linea, line.producto_id, on_hand, on_hand=True
                        )
                    )
        if short:
            raise inventory_rules.insufficient_stock(short, on_hand=True)

    def _moved_line(self, line, move: str, now: str):
        units = line.retiradas if move == stock.PUT_BACK else line.retenidas
        actual, held = {stock.GIVE_BACK: (0, -1), stock.TAKE_OUT: (-1, -1)}.get(move, (1, 1))
        for bodega, quantity in units.items():
            self.products.counted(line.producto_id, bodega, actual * quantity, held * quantity)
        after = {"status": stock.TO[move], "cambio": now}
        if move == stock.GIVE_BACK:
            after["retenidas"] = {}
        elif move == stock.TAKE_OUT:
            after.update(retenidas={}, retiradas=line.retenidas)
        else:
            after.update(retenidas=line.retiradas, retiradas={})
        return dataclasses.replace(line, **after)


class InMemoryInventory:
    """The inventory as the orders use cases ask it (common.stock.client.Inventory): its
    batch check and its stock moves made by the inventory's own rules
    (inventory.service.check_lines, inventory.service.move_stock) on an InMemoryStock;
    the contract's check says every product is in stock."""

    checks_lines = True

    def __init__(self, stock: InMemoryStock, now: str = "2026-01-01T00:00:00Z"):
        self.stock, self._now = stock, now
        self.down = False  # the inventory cannot be asked

    def check(self, producto_id, cantidad, on_behalf):
        return StockAnswer.AVAILABLE

    def check_lines(self, lines, request_id=None):
        from inventory import service as inventory_service

        if self.down:
            raise InventoryUnavailable(5)
        body = {"lineas": [line_body(line) for line in lines]}
        warehouses = _Warehouses(self.stock.warehouses)
        return inventory_service.check_lines(self.stock.products, warehouses, body)["lineas"]

    def move(
        self, move: str, order: Order, request_id: str | None = None, seen: str | None = None
    ) -> ClientMoved:
        from inventory import service as inventory_service

        if self.down:
            raise InventoryUnavailable(5)
        body: dict = {
            "lineas": [line_body(line) for line in order.lineas],
            "estrategia": order.estrategia,
        }
        if seen is not None:
            body["cambio"] = seen
        try:
            moved = inventory_service.move_stock(self.stock, order.id, move, body, self._now)
        except Conflict as refused:
            if refused.code == stock.NOT_HELD:
                raise NotHeld(order.id) from None
            if refused.code == stock.CHANGED:
                raise ReservationChanged(order.id) from None
            raise
        return moved_of(moved)


class _Warehouses:
    def __init__(self, known: dict):
        self._known = known

    def several(self, idents) -> dict:
        return {i: self._known[i] for i in idents if i in self._known}


class RecordingPublisher:
    """Keeps what was published, in order; while `down`, publishes nothing."""

    def __init__(self):
        self.published: list[dict] = []
        self.down = False

    def publish(self, payload: dict) -> bool:
        if self.down:
            return False
        self.published.append(payload)
        return True


class RecordingOutcomes:
    """What the orders use cases counted: "placed", or the reason of a refusal."""

    def __init__(self):
        self.counted: list[str] = []

    def placed(self) -> None:
        self.counted.append("placed")

    def refused(self, reason: str) -> None:
        self.counted.append(reason)
