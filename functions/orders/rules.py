"""Order rules as plain functions: a valid order, a new order's state, and the stock move
each move of its lifecycle makes. The order's shape (NewOrder, Order) is the layer's
(common.orders.records): the users function reads orders too; so is its event
(common.orders.outbox), which the event sweep publishes too."""

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from common.orders.records import (
    ORDER_CANCELLED,
    ORDER_CREATED,
    Assignment,
    NewOrder,
    Order,
    OrderLine,
)
from common.orders.records import unknown_order as unknown_order
from common.platform.clock import to_iso
from common.platform.errors import Conflict, Invalid, invalid_fields
from common.platform.validation import Checker, canonical, query_choice, required_query_choice
from common.stock import moves as stock

TIPOS_PEDIDO = ("NACIONAL", "INTERNACIONAL")
STATUSES = ("PENDIENTE", "APROBADO", "EN_ENVIO", "ENTREGADO", "CANCELADO")
INITIAL_STATUS = ORDER_CREATED
CANCELLED = ORDER_CANCELLED
# The lifecycle (docs/api.md#the-order-lifecycle): each state and where it may go; the
# last two are final.
NEXT = {
    "PENDIENTE": ("APROBADO", "CANCELADO"),
    "APROBADO": ("EN_ENVIO", "CANCELADO"),
    "EN_ENVIO": ("ENTREGADO",),
    "ENTREGADO": (),
    "CANCELADO": (),
}
CUSTOMS_NOTE = "Pedido internacional — requiere documentación aduanera"


@dataclass(frozen=True, kw_only=True)
class OrderRequest:
    """An order as a body asks for it: the order (its lines without what the inventory
    says of their products yet), whether it was sent as `lineas` (else as the contract's
    `productoId` and `cantidad`), and whether its `total` was sent (else it is the sum of
    its lines at their prices)."""

    order: NewOrder
    lines_sent: bool
    total_sent: bool


def parse_order(body: dict) -> NewOrder:
    return parse_request(body).order


def parse_request(body: dict) -> OrderRequest:
    check = Checker(body)
    lines_sent = "lineas" in body and body["lineas"] is not None
    if lines_sent and (body.get("productoId") is not None or body.get("cantidad") is not None):
        check.fail("lineas", "send either lineas or productoId and cantidad, not both")
    total_sent = not lines_sent or body.get("total") is not None
    fields = {
        "user_id": check.identifier("userId"),
        "user_email": check.email("userEmail"),
        "cliente_nombre": check.text("clienteNombre"),
        "total": check.number("total", minimum=0) if total_sent else 0,
        "tipo_pedido": check.choice("tipoPedido", TIPOS_PEDIDO),
        "destino": check.text("destino"),
    }
    lines = _lines(check) if lines_sent else _contract_line(check)
    estrategia = stock.BY_PRIORITY
    if body.get("estrategia") is not None:
        estrategia = check.choice("estrategia", stock.STRATEGIES)
    check.done()
    one = lines[0] if len(lines) == 1 else None
    new_order = NewOrder(
        **fields,
        producto_id=one.producto_id if one else None,
        cantidad=one.cantidad if one else None,
        lineas=lines,
        estrategia=estrategia,
    )
    return OrderRequest(order=new_order, lines_sent=lines_sent, total_sent=total_sent)


def _line(linea: int, producto_id: int, cantidad: int, bodega_id: int | None = None) -> OrderLine:
    """A line as asked: what its product is comes from the stock check."""
    return OrderLine(
        linea=linea,
        producto_id=producto_id,
        sku=None,
        nombre=None,
        cantidad=cantidad,
        precio_unitario=None,
        bodega_id=bodega_id,
    )


def _contract_line(check: Checker) -> tuple[OrderLine, ...]:
    producto_id, cantidad = check.identifier("productoId"), check.count("cantidad", minimum=1)
    return (_line(1, producto_id, cantidad),)


def _lines(check: Checker) -> tuple[OrderLine, ...]:
    """`lineas`: 1 to 50, each a product (once per order), its units and optionally the
    warehouse it is taken from; details name each field by its index (`lineas[2].cantidad`)."""
    lines: list[OrderLine] = []
    seen: dict[int, int] = {}
    for index, line in enumerate(check.objects("lineas", minimum=1, maximum=stock.MAX_LINES) or []):
        producto_id, cantidad = line.identifier("productoId"), line.count("cantidad", minimum=1)
        bodega = line.identifier("bodegaId") if line.body.get("bodegaId") is not None else None
        if producto_id in seen:
            line.fail("productoId", f"product {producto_id} is on lineas[{seen[producto_id]}] too")
        elif producto_id is not None:
            seen[producto_id] = index
        lines.append(_line(index + 1, producto_id, cantidad, bodega))
    return tuple(lines)


def pending_order(
    new_order: NewOrder, order_id: int, now: datetime, creado_por: str | None = None
) -> Order:
    return Order(
        id=order_id,
        status=INITIAL_STATUS,
        observaciones=observaciones_for(new_order.tipo_pedido),
        creado_en=to_iso(now),
        creado_por=creado_por,
        **vars(new_order),
    )


def parse_status_filter(raw: str | None) -> str | None:
    """The `status` filter of the orders list: one of the five states, or none."""
    return query_choice("status", raw, STATUSES)


def parse_status(raw: str | None) -> str:
    """The status an order is asked to move to: one of the five, exactly."""
    return required_query_choice("status", raw, STATUSES)


def moves_to(target: str) -> tuple[str, ...]:
    """The states from which an order may move to `target`."""
    return tuple(state for state, targets in NEXT.items() if target in targets)


def invalid_transition(current: str, target: str) -> Conflict:
    message = f"cannot move from {current} to {target}"
    return Conflict(
        "INVALID_TRANSITION", f"Order {message}", details=[{"field": "status", "message": message}]
    )


def observaciones_for(tipo_pedido: str) -> str | None:
    return CUSTOMS_NOTE if tipo_pedido == "INTERNACIONAL" else None


# The stock move each move of the lifecycle makes (docs/api.md#stock-follows-orders): the
# inventory's move of the order's units (common.stock.moves); the other moves make none.
STOCK_MOVES = {
    ("PENDIENTE", "APROBADO"): stock.RESERVE,
    ("APROBADO", "EN_ENVIO"): stock.TAKE_OUT,
    ("APROBADO", "CANCELADO"): stock.GIVE_BACK,
}


def stock_move(current: str, target: str) -> str | None:
    return STOCK_MOVES.get((current, target))


def check_move(order: Order, target: str) -> None:
    """409 INVALID_TRANSITION unless the lifecycle lets the order go to `target`."""
    if target not in NEXT[order.status]:
        raise invalid_transition(order.status, target)


class StatusChanged(Exception):
    """The order's status was not what the move was decided on: another move won."""


# -- the stock check of an order being placed (docs/api.md#orders-of-several-lines) ---------


def _detail(linea: int, name: str, message: str, lines_sent: bool) -> dict:
    """A line's field as details name it: by index in an order of `lineas`, by the
    contract's name in one of `productoId` and `cantidad`."""
    field = f"lineas[{linea - 1}].{name}" if lines_sent else name
    return {"field": field, "message": message}


def refusal(checked: list[dict], lines_sent: bool) -> Invalid | None:
    """Why an order cannot be placed, from the batch check's answer of each line: the
    lines naming an unknown warehouse (400 VALIDATION_ERROR), else those naming unknown
    products (PRODUCT_NOT_FOUND) or short of stock (INSUFFICIENT_STOCK), details naming
    each; None when every line's units are there."""
    wrong = [
        _detail(a["linea"], "bodegaId", "no warehouse has this id", lines_sent)
        for a in checked
        if a["estado"] == stock.LINE_UNKNOWN_WAREHOUSE
    ]
    if wrong:
        return invalid_fields(wrong)
    unknown = [a for a in checked if a["estado"] == stock.LINE_UNKNOWN_PRODUCT]
    short = [a for a in checked if a["estado"] == stock.LINE_SHORT]
    details = [
        _detail(a["linea"], "productoId", f"product {a['productoId']} does not exist", lines_sent)
        for a in unknown
    ] + [
        _detail(
            a["linea"],
            "cantidad",
            f"product {a['productoId']} has fewer units in stock",
            lines_sent,
        )
        for a in short
    ]
    if unknown:
        names = ", ".join(str(a["productoId"]) for a in unknown)
        return Invalid("PRODUCT_NOT_FOUND", f"Product {names} does not exist", details=details)
    if short:
        names = ", ".join(str(a["productoId"]) for a in short)
        return Invalid(
            "INSUFFICIENT_STOCK", f"Product {names} has fewer units in stock", details=details
        )
    return None


def priced(request: OrderRequest, checked: list[dict]) -> NewOrder:
    """The order with each line's product as the stock check found it (sku, name, price),
    and its total the sum of its lines at those prices when none was sent."""
    found = {int(a["linea"]): a for a in checked}
    lines = tuple(
        dataclasses.replace(
            line,
            sku=found[line.linea].get("sku"),
            nombre=found[line.linea].get("nombre"),
            precio_unitario=found[line.linea].get("precioUnitario"),
        )
        for line in request.order.lineas
    )
    order = dataclasses.replace(request.order, lineas=lines)
    if request.total_sent:
        return order
    total = sum((Decimal(line.precio_unitario or 0) * line.cantidad for line in lines), Decimal(0))
    return dataclasses.replace(order, total=canonical(total))


def refused_move(order: Order, refused: Conflict) -> Conflict:
    """The inventory's refusal of a move, as the order's caller is told: an order of one
    line names its short `cantidad` as the contract's orders do, before its line's."""
    details = refused.details or []
    if order.producto_id is None or not details or details[0]["field"] != "lineas[0].cantidad":
        return refused
    contract = {"field": "cantidad", "message": details[0]["message"]}
    return Conflict(refused.code, refused.message, details=[contract, *details])


# -- the lines as a move leaves them ----------------------------------------------------------


def lines_after(order: Order, target: str, held: dict[int, list[tuple[int, int]]]) -> tuple:
    """The order's lines once it moved to `target`: where each line's units are held once
    approved (`held`, the inventory's answer, by line); none held once an approved order
    is cancelled; every unit on its way once it moves to EN_ENVIO by its own move, and
    delivered once it moves to ENTREGADO (docs/api.md#orders-of-several-lines)."""
    lines = []
    for line in order.lineas:
        if target == "APROBADO":
            taken = held.get(line.linea, [])
            line = dataclasses.replace(
                line, asignaciones=tuple(Assignment(bodega_id=b, cantidad=q) for b, q in taken)
            )
        elif target == CANCELLED and order.status == "APROBADO":
            line = dataclasses.replace(line, asignaciones=())
        elif target == "EN_ENVIO":
            line = dataclasses.replace(line, cantidad_enviada=line.cantidad)
        elif target == "ENTREGADO":
            line = dataclasses.replace(
                line, cantidad_enviada=line.cantidad, cantidad_entregada=line.cantidad
            )
        lines.append(line)
    return tuple(lines)
