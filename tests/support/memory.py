"""In-memory stand-ins for what the use cases are given: repositories and a publisher.

Each repository keeps the same promises as its DynamoDB twin (ids from a counter, the
same domain errors, sku uniqueness); tests/integration/test_repository_contracts.py
runs one suite against both, so a fake cannot drift from the real thing unnoticed.
"""

import dataclasses
import itertools
import threading

from common import stock
from common.errors import Conflict, NotFound
from common.history import Entry, newest
from common.ids import possible_id
from common.paging import Page
from common.stock_client import InventoryUnavailable, NotHeld, ReservationChanged, StockAnswer
from inventory import rules as inventory_rules
from inventory.rules import Product, duplicate_sku, in_alert, unknown_product
from orders.rules import Order, StatusChanged, unknown_order
from shipping.rules import Shipment, unknown_shipment


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

    def add(self, product: Product) -> None:
        with self._lock:
            if self._owner_of(product.sku) is not None:
                raise duplicate_sku(product.sku)
            super().add(product)

    def replace(self, product: Product) -> Product:
        """Every field a client sets; the units reserved are kept."""
        with self._lock:
            if product.id not in self._items:
                raise unknown_product(product.id)
            if self._owner_of(product.sku) not in (None, product.id):
                raise duplicate_sku(product.sku)
            reserved = self._items[product.id].stock_reservado
            self._items[product.id] = dataclasses.replace(product, stock_reservado=reserved)
            return self._items[product.id]

    def counted(self, product_id: int, actual: int, reserved: int) -> None:
        """The stock moves' change of a product's units (InMemoryStock)."""
        with self._lock:
            current = self._items[product_id]
            self._items[product_id] = dataclasses.replace(
                current,
                stock_actual=current.stock_actual + actual,
                stock_reservado=current.stock_reservado + reserved,
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

    def set_status(self, order: Order, target: str, change: Entry) -> Order:
        with self._lock:
            current = self._items.get(order.id)
            if current is None or current.status != order.status:
                raise StatusChanged(order.id)
            self._items[order.id] = dataclasses.replace(current, status=target)
            self._changes.setdefault(order.id, []).append(change)
            return self._items[order.id]

    def history(self, order_id: int) -> tuple[Order, list[Entry]]:
        with self._lock:
            return self.get(order_id), list(self._changes.get(order_id, []))


class InMemoryShipments(_InMemory):
    def __init__(self):
        super().__init__(unknown_shipment)
        self._changes: dict[int, list[Entry]] = {}

    def page(
        self,
        after: int,
        limit: int,
        status: str | None = None,
        pedido_id: int | None = None,
        owner_id: int | None = None,
    ) -> Page:
        return super().page(after, limit, status=status, pedido_id=pedido_id, owner_id=owner_id)

    def set_status(self, shipment_id: int, status: str, change: Entry) -> Shipment:
        with self._lock:
            current = self.get(shipment_id)
            if current.status != status:
                self._items[shipment_id] = dataclasses.replace(current, status=status)
                kept = [*self._changes.get(shipment_id, []), change]
                self._changes[shipment_id] = newest(kept)
            return self._items[shipment_id]

    def history(self, shipment_id: int) -> tuple[Shipment, list[Entry]]:
        with self._lock:
            return self.get(shipment_id), list(self._changes.get(shipment_id, []))


class InMemoryStock:
    """The inventory's stock moves (inventory.stock_repository), over InMemoryProducts:
    each keyed by its order, so none is made twice."""

    def __init__(self, products: InMemoryProducts):
        self._products = products
        self._reservations: dict[int, inventory_rules.Reservation] = {}
        self._lock = products._lock

    def reservation(self, pedido_id: int) -> inventory_rules.Reservation | None:
        return self._reservations.get(pedido_id)

    def holding(self, producto_id: int) -> list[inventory_rules.Reservation]:
        return [
            r
            for _, r in sorted(self._reservations.items())
            if r.producto_id == producto_id and r.estado == stock.HELD
        ]

    def holding_page(self, after: int, limit: int) -> Page:
        held = [
            r for i, r in sorted(self._reservations.items()) if i > after and r.estado == stock.HELD
        ]
        return Page(held[:limit], held[limit - 1].pedido_id if len(held) > limit else None)

    def reserve(
        self, reservation: inventory_rules.Reservation, force: bool = False, seen=None
    ) -> bool:
        with self._lock:
            current = self._as_seen(reservation.pedido_id, seen)
            if current is not None and current.estado == stock.HELD:
                self._claim(current, reservation.desde)
                return False
            if current is not None and current.estado != stock.RELEASED:
                raise inventory_rules.not_held(reservation.pedido_id, current.estado)
            try:
                product = self._products.get(reservation.producto_id)
            except NotFound:
                raise inventory_rules.product_gone(reservation.producto_id) from None
            if not force and product.stock_disponible < reservation.cantidad:
                raise inventory_rules.insufficient_stock(product, reservation.cantidad)
            self._products.counted(product.id, 0, reservation.cantidad)
            self._reservations[reservation.pedido_id] = reservation
            return True

    def give_back(self, pedido_id: int, now: str, seen=None) -> bool:
        return self._move(pedido_id, now, seen, stock.GIVE_BACK, 0, -1)

    def take_out(self, pedido_id: int, now: str, seen=None) -> bool:
        return self._move(pedido_id, now, seen, stock.TAKE_OUT, -1, -1)

    def put_back(self, pedido_id: int, now: str, seen=None) -> bool:
        return self._move(pedido_id, now, seen, stock.PUT_BACK, 1, 1)

    def _as_seen(self, pedido_id: int, seen: str | None):
        current = self._reservations.get(pedido_id)
        if seen is not None and (current is None or current.cambio != seen):
            raise inventory_rules.changed_since(pedido_id)
        return current

    def _claim(self, current: inventory_rules.Reservation, now: str) -> None:
        """A move found made before: claimed for the retry (its `cambio` anew)."""
        self._reservations[current.pedido_id] = dataclasses.replace(current, cambio=now)

    def _move(self, pedido_id, now, seen, move: str, actual: int, held: int):
        """`move` by the contract's rules (common.stock), `actual` and `held` units of the
        order's each: what stockActual and stockReservado change by."""
        target = stock.TO[move]
        with self._lock:
            current = self._as_seen(pedido_id, seen)
            if current is not None and current.estado == target:
                self._claim(current, now)
                return False
            if current is None or current.estado not in stock.FROM[move]:
                raise inventory_rules.not_held(pedido_id, current.estado if current else None)
            c = current.cantidad
            self._products.counted(current.producto_id, actual * c, held * c)
            self._reservations[pedido_id] = dataclasses.replace(current, estado=target, cambio=now)
            return True


class InMemoryInventory:
    """The inventory as the orders use cases ask it (common.stock_client.Inventory): every product
    in stock for the check, and the stock moves made by the inventory's own rules
    (inventory.service.move_stock) on an InMemoryStock."""

    def __init__(self, stock: InMemoryStock, now: str = "2026-01-01T00:00:00Z"):
        self.stock, self._now = stock, now
        self.down = False  # the inventory cannot be asked

    def check(self, producto_id, cantidad, on_behalf):
        return StockAnswer.AVAILABLE

    def move(
        self, move: str, order: Order, request_id: str | None = None, seen: str | None = None
    ) -> bool:
        from inventory import service as inventory_service

        if self.down:
            raise InventoryUnavailable(5)
        body = {"productoId": order.producto_id, "cantidad": order.cantidad}
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
        return bool(moved["aplicada"])


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
