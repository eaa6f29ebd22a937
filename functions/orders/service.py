"""Order use cases, one function each; storage, the stock check and the event publisher
are passed in. No order is saved unless the stock check says the units are there."""

from datetime import datetime
from typing import NamedTuple, Protocol

from common.callers import Caller
from common.clock import to_iso
from common.errors import Invalid, Unavailable
from common.paging import Page
from common.service_calls import OnBehalf
from orders import access, rules
from orders.rules import InventoryUnavailable, Order, StockAnswer


class Orders(Protocol):
    """What the use cases need of order storage (DynamoDB, or a fake in tests)."""

    def next_id(self) -> int: ...
    def get(self, order_id: int) -> Order: ...
    def page(
        self, after: int, limit: int, status: str | None = None, user_id: int | None = None
    ) -> Page: ...
    def move(
        self, order_id: int, target: str, allowed_from: tuple[str, ...], user_id: int | None = None
    ) -> Order:
        """`user_id`: move it only if it is that user's (else it is not found)."""

    def add(self, order: Order) -> None:
        """Saved with its event pending (an outbox)."""

    def pending_events(self, limit: int) -> list[Order]: ...
    def event_published(self, order_id: int) -> None: ...


class Publisher(Protocol):
    def publish(self, payload: dict) -> bool:
        """Queue the event; False when it could not be (never raises)."""


class Outcomes(Protocol):
    """What operators count of orders (metrics on AWS)."""

    def placed(self) -> None: ...
    def refused(self, reason: str) -> None: ...


class Stock(Protocol):
    def check(self, producto_id: int, cantidad: int, on_behalf: OnBehalf) -> StockAnswer:
        """The inventory's answer, asked on behalf of the order's caller; raises
        InventoryUnavailable when the breaker is open."""


_REFUSALS = {
    StockAnswer.INSUFFICIENT: (
        "INSUFFICIENT_STOCK",
        "Product {producto} has fewer than {cantidad} units in stock",
    ),
    StockAnswer.UNKNOWN_PRODUCT: ("PRODUCT_NOT_FOUND", "Product {producto} does not exist"),
    StockAnswer.NOT_CONFIRMED: (
        "STOCK_NOT_CONFIRMED",
        "The stock of product {producto} could not be confirmed; retry later",
    ),
}


def order_to_place(caller: Caller, body: dict) -> rules.NewOrder:
    """The order a body asks for, checked (400), and the caller's to place (403)."""
    new_order = rules.parse_order(body)
    access.may_place(caller, new_order)
    return new_order


def place_order(
    orders: Orders,
    stock: Stock,
    events: Publisher,
    outcomes: Outcomes,
    new_order: rules.NewOrder,
    on_behalf: OnBehalf,
    now: datetime,
) -> Order:
    """Check stock, save, publish PedidoAprobadoEvent for a checked new order
    (order_to_place); `now` is its creadoEn.
    The order is saved with its event pending and taken off that list once published:
    whatever happens after the save (the publish failing, the function timing out), the
    sweep (republish_pending) publishes it. The order stands; its event is never lost."""
    try:
        answer = stock.check(new_order.producto_id, new_order.cantidad, on_behalf)
    except InventoryUnavailable as exc:
        outcomes.refused("INVENTORY_UNAVAILABLE")
        raise Unavailable(
            "INVENTORY_UNAVAILABLE",
            "The inventory service is unavailable; the order was not placed",
            retry_after_seconds=exc.retry_after_seconds,
        ) from None
    if answer in _REFUSALS:
        code, text = _REFUSALS[answer]
        outcomes.refused(code)
        raise Invalid(
            code, text.format(producto=new_order.producto_id, cantidad=new_order.cantidad)
        )
    order = rules.pending_order(new_order, orders.next_id(), now)
    orders.add(order)
    outcomes.placed()
    if events.publish(rules.approved_event(order)):
        orders.event_published(order.id)
    return order


class Swept(NamedTuple):
    published: int
    failed: bool  # a publish failed: the rest waits for the next run
    more: bool  # the batch was full: more may be pending


def republish_pending(
    orders: Orders, events: Publisher, limit: int, created_before: datetime
) -> Swept:
    """Publish the events left pending, oldest first, at most `limit`, of orders created
    before `created_before` (a younger one's own request may still be publishing it).
    The listener handles an event once per order, so one published twice changes
    nothing."""
    pending = orders.pending_events(limit)
    cutoff = to_iso(created_before)
    for published, order in enumerate(pending):
        if order.creado_en >= cutoff:
            return Swept(published, failed=False, more=False)
        if not events.publish(rules.approved_event(order)):
            return Swept(published, failed=True, more=True)
        orders.event_published(order.id)
    return Swept(len(pending), failed=False, more=len(pending) == limit)


def get_order(orders: Orders, caller: Caller, order_id: int) -> Order:
    """The order; someone else's is, to a customer, as unknown as an id no order has."""
    order = orders.get(order_id)
    if not access.sees(caller, order):
        raise rules.unknown_order(order_id)
    return order


def list_orders(
    orders: Orders, caller: Caller, after: int, limit: int, raw_status: str | None
) -> Page:
    """A page of the orders after id `after` the caller may see, all or in one status."""
    return orders.page(
        after,
        limit,
        status=rules.parse_status_filter(raw_status),
        user_id=access.owner_filter(caller),
    )


def change_status(orders: Orders, caller: Caller, order_id: int, raw_status: str | None) -> Order:
    """Move an order along its lifecycle (docs/api.md#the-order-lifecycle); no event is
    published."""
    target = rules.parse_status(raw_status)
    return orders.move(
        order_id, target, rules.moves_to(target), user_id=access.owner_filter(caller)
    )
