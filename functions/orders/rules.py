"""Order rules as plain functions: a valid order, a new order's state, and the stock move
each move of its lifecycle makes. The order's shape (NewOrder, Order) is the layer's
(common.records): the users function reads orders too; so is its event
(common.order_outbox), which the event sweep publishes too."""

from datetime import datetime

from common import stock
from common.clock import to_iso
from common.errors import Conflict
from common.records import ORDER_CANCELLED, ORDER_CREATED, NewOrder, Order
from common.records import unknown_order as unknown_order
from common.validation import Checker, query_choice, required_query_choice

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


def parse_order(body: dict) -> NewOrder:
    check = Checker(body)
    new_order = NewOrder(
        user_id=check.identifier("userId"),
        user_email=check.email("userEmail"),
        cliente_nombre=check.text("clienteNombre"),
        total=check.number("total", minimum=0),
        tipo_pedido=check.choice("tipoPedido", TIPOS_PEDIDO),
        destino=check.text("destino"),
        producto_id=check.identifier("productoId"),
        cantidad=check.count("cantidad", minimum=1),
    )
    check.done()
    return new_order


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
# inventory's move of the order's units (common.stock); the other moves make none.
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
