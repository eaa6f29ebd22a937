"""Return rules as plain functions (docs/api.md#returns): a valid request, how many units
of a line may still be returned, the states' moves, and what a reception does to each
line. The return's shape is the layer's (common.orders.return_records)."""

import re
from dataclasses import dataclass, replace

from common.identity.callers import Caller
from common.orders.records import Order, ReturnCount
from common.orders.return_records import (
    APPROVED,
    CANCELLED,
    CARRIER_ORIGIN,
    CUSTOMER_ORIGIN,
    MAX_COMMENT,
    OPERATOR_ORIGIN,
    REASONS,
    RECEIVED,
    REJECTED,
    REQUESTED,
    STATES,
    Return,
    ReturnLine,
)
from common.platform.errors import Conflict, DomainError, Forbidden
from common.platform.validation import Checker, query_choice, required_query_choice
from common.stock.moves import MAX_LINES

# Where each state may go by a PATCH; RECIBIDA only by a reception.
NEXT = {
    REQUESTED: (APPROVED, REJECTED, CANCELLED),
    APPROVED: (RECEIVED, CANCELLED),
    REJECTED: (),
    RECEIVED: (),
    CANCELLED: (),
}


@dataclass(frozen=True, kw_only=True)
class ReturnRequest:
    """What a body asks to return: (linea, cantidad) pairs, why, and the caller's words."""

    lineas: tuple[tuple[int, int], ...]
    motivo: str
    comentario: str | None


@dataclass(frozen=True, kw_only=True)
class Received:
    """What a reception decides of one line: units back into `bodega_id`, units discarded."""

    linea: int
    reingresar: int
    descartar: int
    bodega_id: int | None


class StateChanged(Exception):
    """The return's state was not what the move was decided on: another move won."""


class CountsChanged(Exception):
    """The order's return counts changed since read (another return's write): read again."""


def origin_of(caller: Caller) -> str:
    return OPERATOR_ORIGIN if caller.is_operator else CUSTOMER_ORIGIN


def parse_request(body: dict, order: Order) -> ReturnRequest:
    """A return's request, checked against the order's lines (400: a line it does not
    have, one named twice)."""
    check = Checker(body)
    asked: list[tuple[int, int]] = []
    lines = {line.linea for line in order.lineas}
    for index, entry in enumerate(check.objects("lineas", minimum=1, maximum=MAX_LINES) or []):
        linea, cantidad = entry.identifier("linea"), entry.count("cantidad", minimum=1)
        if linea is None or cantidad is None:
            continue
        if linea not in lines:
            check.fail(f"lineas[{index}].linea", f"order {order.id} has no line {linea}")
        elif any(linea == seen for seen, _ in asked):
            check.fail(f"lineas[{index}].linea", f"line {linea} is named twice")
        else:
            asked.append((linea, cantidad))
    motivo = check.choice("motivo", REASONS)
    comentario = check.text("comentario", required=False, max_length=MAX_COMMENT)
    check.done()
    return ReturnRequest(lineas=tuple(asked), motivo=motivo, comentario=comentario)


def returnable(order: Order, linea: int) -> int:
    """A line's units that may still be returned: delivered, less those in returns that
    were not rejected nor cancelled (a carrier's return holds undelivered units: none)."""
    line = next(line for line in order.lineas if line.linea == linea)
    return max(0, line.cantidad_entregada - order.return_count(linea).en_devolucion)


def check_returnable(order: Order, asked: tuple[tuple[int, int], ...]) -> None:
    """409 NOT_RETURNABLE naming each line asked for more than it has to return."""
    short = [
        {
            "field": f"lineas[{index}].cantidad",
            "message": f"line {linea} has {returnable(order, linea)} units to return",
        }
        for index, (linea, cantidad) in enumerate(asked)
        if cantidad > returnable(order, linea)
    ]
    if short:
        raise Conflict(
            "NOT_RETURNABLE",
            f"Order {order.id} has fewer delivered units to return than asked",
            details=short,
        )


def _counts(order: Order, changed: dict[int, ReturnCount]) -> tuple[ReturnCount, ...]:
    kept = {count.linea: count for count in order.devoluciones or ()}
    kept.update(changed)
    return tuple(kept[linea] for linea in sorted(kept))


def counts_held(order: Order, lines: tuple[ReturnLine, ...], sign: int) -> tuple[ReturnCount, ...]:
    """The order's counts once these units are in a return (sign 1) or out of one
    (-1: rejected, cancelled)."""
    changed = {}
    for line in lines:
        count = order.return_count(line.linea)
        held = max(0, count.en_devolucion + sign * line.cantidad)
        changed[line.linea] = replace(count, en_devolucion=held)
    return _counts(order, changed)


def counts_received(order: Order, lines: tuple[ReturnLine, ...]) -> tuple[ReturnCount, ...]:
    """The order's counts once these lines came back (restocked or discarded)."""
    changed = {}
    for line in lines:
        count = order.return_count(line.linea)
        back = line.reingresada + line.descartada
        changed[line.linea] = replace(count, devuelta=count.devuelta + back)
    return _counts(order, changed)


def new_lines(order: Order, asked: tuple[tuple[int, int], ...]) -> tuple[ReturnLine, ...]:
    products = {line.linea: line.producto_id for line in order.lineas}
    return tuple(
        ReturnLine(linea=linea, producto_id=products[linea], cantidad=cantidad)
        for linea, cantidad in asked
    )


def holds_units(ret: Return) -> bool:
    """Whether its units count against the order's returnable ones (a carrier's never)."""
    return ret.origen != CARRIER_ORIGIN


# -- the states ---------------------------------------------------------------------------


def parse_state(raw: str | None) -> str:
    return required_query_choice("status", raw, STATES)


def parse_state_filter(raw: str | None) -> str | None:
    return query_choice("estado", raw, STATES)


def invalid_transition(ret: Return, target: str) -> Conflict:
    message = f"cannot move from {ret.estado} to {target}"
    return Conflict(
        "INVALID_TRANSITION",
        f"Return {message}",
        details=[{"field": "status", "message": message}],
    )


def check_move(caller: Caller, ret: Return, target: str) -> None:
    """A customer may cancel their own SOLICITADA return, nothing else (403); RECIBIDA is
    reached by a reception alone; any other move outside NEXT: 409."""
    if not caller.is_operator and target != CANCELLED:
        raise Forbidden(f"A customer may only move a return to {CANCELLED}")
    if target == RECEIVED or target not in NEXT[ret.estado]:
        raise invalid_transition(ret, target)
    if not caller.is_operator and ret.estado != REQUESTED:
        raise Forbidden(f"A customer may only cancel a return while it is {REQUESTED}")


def releases_units(target: str) -> bool:
    return target in (REJECTED, CANCELLED)


# -- the reception --------------------------------------------------------------------------


def parse_reception(body: dict, ret: Return) -> tuple[ReturnLine, ...]:
    """What happens to each line of the return: every line named once, its `reingresar`
    and `descartar` adding up to its units, a `bodegaId` where any go back (400)."""
    check = Checker(body)
    decided: dict[int, Received] = {}
    units = {line.linea: line.cantidad for line in ret.lineas}
    for index, entry in enumerate(check.objects("lineas", minimum=1, maximum=MAX_LINES) or []):
        at = f"lineas[{index}]."
        linea = entry.identifier("linea")
        back = entry.integer("reingresar", minimum=0, maximum=units.get(linea or 0, 0))
        away = entry.integer("descartar", minimum=0, maximum=units.get(linea or 0, 0))
        bodega = entry.body.get("bodegaId")
        if bodega is not None or (back or 0) > 0:
            bodega = entry.identifier("bodegaId")
        if linea is None or back is None or away is None:
            continue
        if linea not in units:
            check.fail(f"{at}linea", f"return {ret.id} has no line {linea}")
        elif linea in decided:
            check.fail(f"{at}linea", f"line {linea} is named twice")
        elif back + away != units[linea]:
            check.fail(f"{at}reingresar", f"reingresar + descartar must be {units[linea]}")
        else:
            decided[linea] = Received(
                linea=linea, reingresar=back, descartar=away, bodega_id=bodega if back else None
            )
    for linea in units:
        if linea not in decided and not check.details:
            check.fail("lineas", f"line {linea} of the return is missing")
    check.done()
    return tuple(
        replace(
            line,
            reingresada=decided[line.linea].reingresar,
            descartada=decided[line.linea].descartar,
            bodega_id=decided[line.linea].bodega_id,
        )
        for line in ret.lineas
    )


def restocked(lines: tuple[ReturnLine, ...]) -> list[dict]:
    """What a reception puts back into stock, as the inventory's restock takes it."""
    return [
        {"productoId": line.producto_id, "bodegaId": line.bodega_id, "cantidad": line.reingresada}
        for line in lines
        if line.reingresada > 0
    ]


# A reception that would put back units of a product deleted since the order (409).
PRODUCT_DELETED = "PRODUCT_DELETED"
_RESTOCK_LINE = re.compile(r"lineas\[(\d+)\]")


def products_deleted(body: dict, lines: tuple[ReturnLine, ...], gone: DomainError) -> Conflict:
    """The 409 of a reception whose restock the inventory refused for products deleted
    since the order (`gone`: its details name the restock's lines, `restocked(lines)`):
    each line of the reception that would put their units back, which may only be
    discarded now."""
    back = [line for line in lines if line.reingresada > 0]
    products = {
        back[int(found.group(1))].producto_id
        for detail in gone.details or []
        if (found := _RESTOCK_LINE.match(str(detail.get("field", ""))))
        and int(found.group(1)) < len(back)
    }
    sent = [entry.get("linea") for entry in body.get("lineas", [])]
    details = [
        {
            "field": f"lineas[{sent.index(line.linea)}].reingresar",
            "message": f"product {line.producto_id} no longer exists: its units can only be "
            "discarded (descartar)",
        }
        for line in back
        if line.producto_id in products and line.linea in sent
    ]
    return Conflict(
        PRODUCT_DELETED,
        "Units of products deleted since the order cannot go back into stock; "
        "receive them as discarded",
        details=details,
    )


def parse_carrier_return(body: dict) -> tuple[int, int, tuple[tuple[int, int], ...]]:
    """What the shipping service sends of a shipment with lines that came back: its
    order, itself, and its lines' units."""
    check = Checker(body)
    order_id, envio_id = check.identifier("pedidoId"), check.identifier("envioId")
    lines = []
    for entry in check.objects("lineas", minimum=1, maximum=MAX_LINES) or []:
        linea, cantidad = entry.identifier("linea"), entry.count("cantidad", minimum=1)
        if linea is not None and cantidad is not None:
            lines.append((linea, cantidad))
    check.done()
    return order_id, envio_id, tuple(lines)


def reception_mark(lines: tuple[ReturnLine, ...]) -> str:
    """What a reception decided of each line, as its claim on the return keeps it: a
    retry must decide the same."""
    return ";".join(
        f"{line.linea}:{line.reingresada}:{line.descartada}:{line.bodega_id or 0}"
        for line in sorted(lines, key=lambda line: line.linea)
    )
