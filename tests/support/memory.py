"""In-memory stand-ins for what the use cases are given: repositories and a publisher.

Each repository keeps the same promises as its DynamoDB twin (ids from a counter, the
same domain errors, sku uniqueness); tests/integration/test_repository_contracts.py
runs one suite against both, so a fake cannot drift from the real thing unnoticed.
"""

import itertools
import threading

from common.ids import possible_id
from common.paging import Page
from inventory.rules import Product, duplicate_sku, in_alert, unknown_product
from orders.rules import Order, invalid_transition, unknown_order
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

    def replace(self, product: Product) -> None:
        with self._lock:
            if product.id not in self._items:
                raise unknown_product(product.id)
            if self._owner_of(product.sku) not in (None, product.id):
                raise duplicate_sku(product.sku)
            self._items[product.id] = product

    def alerts_page(self, after: int, limit: int) -> Page:
        return self._page(after, limit, in_alert)

    def remove(self, product_id: int) -> None:
        with self._lock:
            if self._items.pop(product_id, None) is None:
                raise unknown_product(product_id)


class InMemoryOrders(_InMemory):
    def __init__(self):
        super().__init__(unknown_order)
        self.pending: set[int] = set()  # orders whose event is still to be published

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

    def move(
        self, order_id: int, target: str, allowed_from: tuple[str, ...], user_id: int | None = None
    ) -> Order:
        with self._lock:
            if order_id not in self._items or user_id not in (None, self._items[order_id].user_id):
                raise unknown_order(order_id)
            current = self._items[order_id]
            if current.status in allowed_from:
                self._items[order_id] = Order(**{**vars(current), "status": target})
            elif current.status != target:
                raise invalid_transition(current.status, target)
            return self._items[order_id]


class InMemoryShipments(_InMemory):
    def __init__(self):
        super().__init__(unknown_shipment)

    def page(
        self,
        after: int,
        limit: int,
        status: str | None = None,
        pedido_id: int | None = None,
        owner_id: int | None = None,
    ) -> Page:
        return super().page(after, limit, status=status, pedido_id=pedido_id, owner_id=owner_id)

    def set_status(self, shipment_id: int, status: str) -> Shipment:
        with self._lock:
            if shipment_id not in self._items:
                raise unknown_shipment(shipment_id)
            current = self._items[shipment_id]
            self._items[shipment_id] = Shipment(**{**vars(current), "status": status})
            return self._items[shipment_id]


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
