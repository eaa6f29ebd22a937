"""Order use cases, one function each; storage, the inventory (its stock check and its
stock moves: common.stock.client.Inventory) and the event publisher are passed in. No
order is saved unless the stock check says the units are there, and its lifecycle moves
its units (docs/api.md#stock-follows-orders)."""

import contextlib
import time
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from common.http.service_calls import OnBehalf
from common.identity.callers import Caller
from common.orders import records
from common.orders.outbox import Publisher, approved_event
from common.platform.clock import to_iso
from common.platform.errors import Conflict, DomainError, Invalid, Unavailable
from common.platform.history import Entry
from common.stock.client import Inventory, InventoryUnavailable, Moved, NotHeld, StockAnswer
from common.stock.moves import TAKE_OUT, UNDOING
from common.storage.paging import Page
from orders import access, rules
from orders.commands import ChangeStatus, PlaceOrder
from orders.rules import Order


class Orders(Protocol):
    """What the use cases need of order storage (DynamoDB, or a fake in tests)."""

    def next_id(self) -> int: ...
    def get(self, order_id: int) -> Order: ...
    def page(
        self, after: int, limit: int, status: str | None = None, user_id: int | None = None
    ) -> Page: ...
    def set_status(
        self, order: Order, target: str, change: Entry, lines: tuple | None = None
    ) -> Order:
        """On the condition that its status is still `order.status`: else StatusChanged;
        its lines become `lines` in the same write."""

    def history(self, order_id: int) -> tuple[Order, list[Entry]]: ...

    def all_on_their_way(self, order: Order) -> None:
        """Every line's units counted on their way, while the order is EN_ENVIO."""

    def add(self, order: Order) -> None:
        """Saved with its userId claimed (common.identity.user_ids: Conflict while an account is
        being made with it) and its event pending (an outbox)."""

    def event_published(self, order_id: int) -> None: ...


class Outcomes(Protocol):
    """What operators count of orders (metrics on AWS)."""

    def placed(self) -> None: ...
    def refused(self, reason: str) -> None: ...


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


def order_to_place(on_behalf: OnBehalf, body: dict, at: datetime) -> PlaceOrder:
    """The order a body asks for, checked (400), and the caller's to place (403): the
    command to place it, asked at `at`."""
    request = rules.parse_request(body)
    access.may_place(on_behalf.caller, request.order)
    return PlaceOrder(request=request, on_behalf=on_behalf, at=at)


def place_order(
    orders: Orders, stock: Inventory, events: Publisher, outcomes: Outcomes, command: PlaceOrder
) -> Order:
    """Check stock, save, publish PedidoAprobadoEvent for a checked new order
    (order_to_place); the command's `at` is its creadoEn.
    The order is saved with its event pending and taken off that list once published:
    whatever happens after the save (the publish failing, the function timing out), the
    event sweep publishes it (common.orders.outbox.republish_pending). The order stands;
    its event is never lost."""
    try:
        new_order = _checked(stock, outcomes, command)
    except InventoryUnavailable as exc:
        outcomes.refused("INVENTORY_UNAVAILABLE")
        raise Unavailable(
            "INVENTORY_UNAVAILABLE",
            "The inventory service is unavailable; the order was not placed",
            retry_after_seconds=exc.retry_after_seconds,
        ) from None
    order = rules.pending_order(
        new_order, orders.next_id(), command.at, command.on_behalf.caller.role
    )
    orders.add(order)
    outcomes.placed()
    if events.publish(approved_event(order)):
        orders.event_published(order.id)
    return order


def _checked(stock: Inventory, outcomes: Outcomes, command: PlaceOrder) -> records.NewOrder:
    """The order, once the inventory said its units are there: every line at once by the
    batch check (which says what each line's product is), or, for an order of the
    contract's `productoId` and `cantidad` whose check goes to a URL of the inventory's
    API, by the contract's own check (which says only true or false)."""
    request = command.request
    new_order = request.order
    if not request.lines_sent and not stock.checks_lines:
        assert new_order.producto_id is not None and new_order.cantidad is not None
        answer = stock.check(new_order.producto_id, new_order.cantidad, command.on_behalf)
        if answer in _REFUSALS:
            code, text = _REFUSALS[answer]
            outcomes.refused(code)
            raise Invalid(
                code, text.format(producto=new_order.producto_id, cantidad=new_order.cantidad)
            )
        return new_order
    checked = stock.check_lines(new_order.lineas, command.on_behalf.request_id)
    if checked is None:
        code, text = _REFUSALS[StockAnswer.NOT_CONFIRMED]
        outcomes.refused(code)
        raise Invalid(code, text.format(producto=_products(new_order), cantidad=""))
    refused = rules.refusal(checked, request.lines_sent)
    if refused is not None:
        outcomes.refused(refused.code)
        raise refused
    return rules.priced(request, checked)


def _products(order: records.NewOrder) -> str:
    return ", ".join(str(line.producto_id) for line in order.lineas)


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


# Rounds of a move whose order another move changed meanwhile: each decides afresh
# from what it finds (a cancel racing an approval is then a cancel of an approved order),
# after a pause that lets the other move, between its stock move and its status write,
# finish.
MOVE_PAUSES_SECONDS = (0.05, 0.1, 0.2, 0.4, 0.8)


def change_status(
    orders: Orders,
    stock: Inventory,
    command: ChangeStatus,
    pause: Callable[[float], None] = time.sleep,
) -> Order:
    """Move an order along its lifecycle (docs/api.md#the-order-lifecycle) and its units
    with it (docs/api.md#stock-follows-orders); no event is published.

    The move is decided on the order as read: its stock move is made first (through the
    inventory, keyed by the order, so never twice), then the order's status is written
    on the condition that it is still the one read. If another move won meanwhile, the
    stock move this one made is undone (unless the winner went where this one was going,
    with the same units) and the move is decided again from what it finds. What a crash
    between the two writes leaves, the repair (stock_repair) puts right."""
    target = rules.parse_status(command.status)
    change = Entry(target, to_iso(command.at), command.caller.role)
    for seconds in (*MOVE_PAUSES_SECONDS, None):
        order = get_order(orders, command.caller, command.order_id)
        if order.status == target:
            return order  # already there: nothing moves, nothing is recorded
        rules.check_move(order, target)
        try:
            return _move(orders, stock, order, target, change, command.request_id)
        except rules.StatusChanged:
            if seconds is not None:
                pause(seconds)
    raise Conflict(
        "CONCURRENT_UPDATE", f"Order {command.order_id} kept changing while being moved; retry"
    )


def _move(
    orders: Orders,
    stock: Inventory,
    order: Order,
    target: str,
    change: Entry,
    request_id: str | None,
) -> Order:
    """The stock move, then the status write; StatusChanged when another move won (its
    units, or its status)."""
    move = rules.stock_move(order.status, target)
    try:
        moved = stock.move(move, order, request_id) if move else Moved(False)
    except NotHeld:
        raise rules.StatusChanged(order.id) from None
    except InventoryUnavailable as exc:
        raise Unavailable(
            "INVENTORY_UNAVAILABLE",
            f"The inventory service is unavailable; order {order.id} is still {order.status}",
            retry_after_seconds=exc.retry_after_seconds,
        ) from None
    except Conflict as refused:
        raise rules.refused_move(order, refused) from None
    try:
        return orders.set_status(
            order, target, change, rules.lines_after(order, target, moved.held)
        )
    except rules.StatusChanged:
        now = orders.get(order.id)
        if moved.applied and move and now.status != target:
            _undo(stock, move, order, request_id)
        elif moved.applied and move == TAKE_OUT:
            # Its first part on the road moved it to EN_ENVIO meanwhile
            # (docs/api.md#shipments-of-parts), and this take-out took every unit still
            # reserved: every unit is on its way, as this move would have counted them.
            orders.all_on_their_way(now)
        raise


def _undo(stock: Inventory, move: str, order: Order, request_id: str | None) -> None:
    """Undo the stock move of a move that lost; if the inventory cannot be asked now, the
    repair undoes it within minutes (the reservation no longer matches the order)."""
    with contextlib.suppress(InventoryUnavailable, DomainError, NotHeld):
        stock.move(UNDOING[move], order, request_id)


def order_history(orders: Orders, caller: Caller, order_id: int) -> list[Entry]:
    """The order's history (docs/api.md#history); someone else's is, to a customer, as
    unknown as an id no order has."""
    order, changes = orders.history(order_id)
    if not access.sees(caller, order):
        raise rules.unknown_order(order_id)
    return records.order_history(order, changes)
