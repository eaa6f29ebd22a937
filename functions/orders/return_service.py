"""Return use cases, one function each (docs/api.md#returns); storage and the inventory
are passed in.

A request, a rejection or a cancellation changes what the order's lines have left to
return: each is one transaction of the return and the order's counts, conditioned on
both as read (orders.return_repository), decided again from what it finds when another
write won. A reception first puts its units back into stock, keyed by the return (so
never twice, whatever the retries: the inventory's ledger records it), then writes the
return RECIBIDA and the lines' `cantidadDevuelta`, on the condition that it is still
APROBADA: of two receptions at once one goes through, the other is 409."""

import time
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from common.identity.callers import Caller
from common.orders.records import Order, ReturnCount
from common.orders.return_records import (
    APPROVED,
    CARRIER_ORIGIN,
    NOT_DELIVERED,
    RECEIVED,
    REQUESTED,
    Return,
    ReturnLine,
    first_state,
    return_history,
    unknown_return,
)
from common.platform.clock import to_iso
from common.platform.errors import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Unavailable,
    invalid_field,
)
from common.platform.history import SYSTEM, Entry
from common.stock.client import Inventory, InventoryUnavailable
from common.stock.moves import RESTOCK_DIFFERS
from common.storage.paging import Page
from orders import access, return_rules, service
from orders.return_rules import CountsChanged, StateChanged
from orders.service import Orders


class Returns(Protocol):
    """What the use cases need of return storage (orders.return_repository)."""

    def next_id(self) -> int: ...
    def person_erased(self, user_id: int) -> bool: ...
    def get(self, return_id: int) -> Return: ...
    def page(
        self, after: int, limit: int, estado: str | None = None, user_id: int | None = None
    ) -> Page: ...
    def of_order(self, pedido_id: int, after: int, limit: int) -> Page: ...
    def all_of_order(self, pedido_id: int) -> list[Return]: ...
    def history(self, return_id: int) -> tuple[Return, list[Entry]]: ...
    def create(self, ret: Return, order: Order, counts: tuple[ReturnCount, ...] | None) -> None: ...
    def claim_reception(self, ret: Return, mark: str) -> None: ...
    def release_reception(self, ret: Return, mark: str) -> None: ...
    def change(
        self,
        ret: Return,
        target: str,
        entry: Entry,
        order: Order,
        counts: tuple[ReturnCount, ...] | None = None,
        lines: tuple[ReturnLine, ...] | None = None,
    ) -> Return: ...


# Rounds of a write another return's write beat to the same order: each reads again.
ROUNDS = 20


def _pause(attempt: int) -> None:
    time.sleep(min(0.2, 0.01 * 2**attempt))


def _kept_changing(what: str) -> Conflict:
    return Conflict("CONCURRENT_UPDATE", f"{what} kept changing; retry")


def request_return(
    orders: Orders, returns: Returns, caller: Caller, order_id: int, body: dict, at: datetime
) -> Return:
    """A return of delivered units, asked by the order's customer or an operator (anyone
    else's order is, to a customer, as unknown as an id no order has): never more than a
    line has delivered and not yet in a return, whatever the requests racing."""
    order = service.get_order(orders, caller, order_id)
    asked = return_rules.parse_request(body, order)
    # An erased person's words are kept nowhere, a return of theirs included.
    comentario = None if returns.person_erased(order.user_id) else asked.comentario
    return_id = returns.next_id()
    for attempt in range(ROUNDS):
        return_rules.check_returnable(order, asked.lineas)
        lines = return_rules.new_lines(order, asked.lineas)
        ret = Return(
            id=return_id,
            pedido_id=order.id,
            estado=REQUESTED,
            origen=return_rules.origin_of(caller),
            motivo=asked.motivo,
            comentario=comentario,
            lineas=lines,
            creado_en=to_iso(at),
            user_id=order.user_id,
            creado_por=caller.role,
        )
        try:
            returns.create(ret, order, return_rules.counts_held(order, lines, 1))
            return ret
        except CountsChanged:
            _pause(attempt)
            order = orders.get(order_id)
    raise _kept_changing(f"Order {order_id}'s returns")


def open_carrier_return(
    orders: Orders,
    returns: Returns,
    order_id: int,
    envio_id: int,
    lines: tuple[tuple[int, int], ...],
    at: datetime,
) -> Return:
    """The return a carrier's DEVUELTO tracking event of a shipment with lines opens by
    itself (docs/api.md#returns): those units, `origen` transportista, `motivo`
    NO_ENTREGADO, already APROBADA. Once per shipment: asked again, the first. Its units
    were never delivered, so they take nothing from what the customer may return."""
    order = orders.get(order_id)
    for made in returns.all_of_order(order_id):
        if made.envio_id == envio_id:
            return made
    products = {line.linea: line.producto_id for line in order.lineas}
    ret = Return(
        id=returns.next_id(),
        pedido_id=order.id,
        estado=APPROVED,
        origen=CARRIER_ORIGIN,
        motivo=NOT_DELIVERED,
        comentario=None,
        lineas=tuple(
            ReturnLine(linea=linea, producto_id=products[linea], cantidad=cantidad)
            for linea, cantidad in lines
            if linea in products and cantidad > 0
        ),
        creado_en=to_iso(at),
        user_id=order.user_id,
        creado_por=SYSTEM,
        envio_id=envio_id,
    )
    assert first_state(ret) == APPROVED
    if not ret.lineas:
        raise invalid_field("lineas", f"order {order_id} has none of these lines")
    try:
        returns.create(ret, order, None)
    except (CountsChanged, StateChanged):
        # Another event of the same shipment opened it at this moment: answer that one,
        # once the orders' index shows it (until then the caller retries).
        for made in returns.all_of_order(order_id):
            if made.envio_id == envio_id:
                return made
        raise Unavailable(
            "RETURN_BEING_OPENED",
            f"The return of shipment {envio_id} is being opened: retry",
            retry_after_seconds=1,
        ) from None
    return ret


def get_return(returns: Returns, caller: Caller, return_id: int) -> Return:
    """The return; someone else's is, to a customer, as unknown as an id no return has."""
    ret = returns.get(return_id)
    if not caller.owns(ret.user_id):
        raise unknown_return(return_id)
    return ret


def list_returns(
    returns: Returns, caller: Caller, after: int, limit: int, raw_estado: str | None
) -> Page:
    return returns.page(
        after,
        limit,
        estado=return_rules.parse_state_filter(raw_estado),
        user_id=access.owner_filter(caller),
    )


def order_returns(
    orders: Orders, returns: Returns, caller: Caller, order_id: int, after: int, limit: int
) -> Page:
    service.get_order(orders, caller, order_id)  # someone else's: 404
    return returns.of_order(order_id, after, limit)


def return_history_of(returns: Returns, caller: Caller, return_id: int) -> list[Entry]:
    ret, changes = returns.history(return_id)
    if not caller.owns(ret.user_id):
        raise unknown_return(return_id)
    return return_history(ret, changes)


def change_state(
    orders: Orders,
    returns: Returns,
    caller: Caller,
    return_id: int,
    raw_status: str | None,
    at: datetime,
) -> Return:
    """Move a return along its states (docs/api.md#returns); a rejection or a
    cancellation gives its units back to what the order's lines may return. The same
    state as now: 200, nothing changes."""
    access.may_move_return_to(caller, raw_status)
    target = return_rules.parse_state(raw_status)
    entry = Entry(target, to_iso(at), caller.role)
    for attempt in range(ROUNDS):
        ret = get_return(returns, caller, return_id)
        if ret.estado == target and target != RECEIVED:
            return ret  # a PATCH to RECIBIDA is 409 always: only a reception reaches it
        try:
            return_rules.check_move(caller, ret, target)
        except Forbidden:
            if attempt == 0:
                raise
            # The customer's cancel lost to another move: the loser's 409 (§3), not 403.
            raise return_rules.invalid_transition(ret, target) from None
        if ret.recepcion is not None:  # being received: only the reception moves it now
            raise return_rules.invalid_transition(ret, target)
        order = orders.get(ret.pedido_id)
        counts = (
            return_rules.counts_held(order, ret.lineas, -1)
            if return_rules.releases_units(target) and return_rules.holds_units(ret)
            else None
        )
        try:
            return returns.change(ret, target, entry, order, counts)
        except StateChanged:
            continue  # another move won: decided again on what it left
        except CountsChanged:
            _pause(attempt)
    raise _kept_changing(f"Return {return_id}")


def receive(
    orders: Orders,
    returns: Returns,
    stock: Inventory,
    caller: Caller,
    return_id: int,
    body: dict,
    at: datetime,
    request_id: str | None = None,
    pause: Callable[[int], None] = _pause,
) -> Return:
    """The reception of an APROBADA return (operators): each line's units back into a
    warehouse's stock or discarded, once; the return RECIBIDA, its order's lines'
    `cantidadDevuelta` up by them."""
    access.may_receive(caller)
    ret = get_return(returns, caller, return_id)
    if ret.estado != APPROVED:
        raise return_rules.invalid_transition(ret, RECEIVED)
    lines = return_rules.parse_reception(body, ret)
    mark = return_rules.reception_mark(lines)
    try:
        returns.claim_reception(ret, mark)
    except StateChanged:
        raise return_rules.invalid_transition(returns.get(ret.id), RECEIVED) from None
    back = return_rules.restocked(lines)
    if back:
        try:
            stock.restock(ret.id, back, request_id)
        except Invalid:
            returns.release_reception(ret, mark)  # nothing went back: another may be decided
            raise
        except NotFound as gone:  # products deleted since: nothing went back either
            returns.release_reception(ret, mark)
            raise return_rules.products_deleted(body, lines, gone) from None
        except InventoryUnavailable as exc:
            raise Unavailable(
                "INVENTORY_UNAVAILABLE",
                f"The inventory service is unavailable; return {ret.id} is still {ret.estado}",
                retry_after_seconds=exc.retry_after_seconds,
            ) from None
        except Conflict as refused:
            if refused.code != RESTOCK_DIFFERS:
                raise
            raise return_rules.invalid_transition(returns.get(ret.id), RECEIVED) from None
    entry = Entry(RECEIVED, to_iso(at), caller.role)
    for attempt in range(ROUNDS):
        order = orders.get(ret.pedido_id)
        try:
            return returns.change(
                ret, RECEIVED, entry, order, return_rules.counts_received(order, lines), lines
            )
        except StateChanged:
            raise return_rules.invalid_transition(returns.get(ret.id), RECEIVED) from None
        except CountsChanged:
            pause(attempt)
    raise _kept_changing(f"Return {return_id}")
