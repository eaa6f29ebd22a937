"""Shipments of parts of an order as plain functions (docs/api.md#shipments-of-parts): the
lines a new shipment may carry and the one warehouse they leave from, and what its
leaving and its delivery add to its order's lines.

An order's item keeps, per line and warehouse, how many of its units are on shipments
(`enEnvios`, written with each shipment in one transaction: shipping.parts_repository);
a line's units not yet on a shipment in a warehouse are those assigned to it there less
those. The order's lines count the units on their way (`cantidadEnviada`) and delivered
(`cantidadEntregada`); each shipment adds to them once (its id is kept on the order).
"""

from dataclasses import dataclass, replace

from common.orders.records import Order, OrderLine, Shipment, ShipmentLine
from common.platform.errors import Conflict, Invalid, invalid_fields
from common.platform.validation import Checker
from common.stock.moves import MAX_LINES

# The order states a shipment with lines may be made in.
SHIPPABLE = ("APROBADO", "EN_ENVIO")
# The shipment states its units have left in (its first of them takes them out).
ON_ITS_WAY = ("EN_RUTA", "ENTREGADO")
DELIVERED = "ENTREGADO"
# The shipment states in which it may still be deleted (its units not yet gone).
DELETABLE = ("CREADO", "ASIGNADO")


@dataclass(frozen=True)
class OrderParts:
    """An order as its shipments see it: the order, its units on shipments by (line,
    warehouse), the shipments whose leaving and whose delivery it counted, and whether
    its item holds its lines and its counts yet (an order placed before lines: not)."""

    order: Order
    on_shipments: dict[tuple[int, int], int]
    departed: frozenset[int] = frozenset()
    delivered: frozenset[int] = frozenset()
    lines_stored: bool = True
    counts_stored: bool = True


def parse_lines(check: Checker) -> tuple[tuple[ShipmentLine, ...], int | None]:
    """A new shipment's optional `lineas` (1 to 50, each a line of its order once, and
    its units) and `bodegaId` (read only with them: a shipment without lines is the
    contract's, which ignores fields it does not know)."""
    if check.body.get("lineas") is None:
        return (), None
    bodega = check.identifier("bodegaId") if check.body.get("bodegaId") is not None else None
    lines: list[ShipmentLine] = []
    seen: dict[int, int] = {}
    for index, line in enumerate(check.objects("lineas", minimum=1, maximum=MAX_LINES) or []):
        linea, cantidad = line.identifier("linea"), line.count("cantidad", minimum=1)
        if linea in seen:
            line.fail("linea", f"line {linea} is on lineas[{seen[linea]}] too")
        elif linea is not None:
            seen[linea] = index
        if linea is not None and cantidad is not None:
            lines.append(ShipmentLine(linea=linea, cantidad=cantidad))
    return tuple(lines), bodega


def _pending(parts: OrderParts, line: OrderLine) -> dict[int, int]:
    """The line's units not yet on a shipment, by warehouse (those with any)."""
    left = {
        a.bodega_id: a.cantidad - parts.on_shipments.get((line.linea, a.bodega_id), 0)
        for a in line.asignaciones
    }
    return {bodega: units for bodega, units in left.items() if units > 0}


def unknown_lines(order: Order, lines: tuple[ShipmentLine, ...]) -> Invalid | None:
    """400 naming each `linea` its order does not have."""
    known = {line.linea for line in order.lineas}
    details = [
        {"field": f"lineas[{i}].linea", "message": f"order {order.id} has no line {line.linea}"}
        for i, line in enumerate(lines)
        if line.linea not in known
    ]
    return invalid_fields(details) if details else None


def warehouse_of(parts: OrderParts, lines: tuple[ShipmentLine, ...], bodega: int | None) -> int:
    """The one warehouse a shipment of these lines leaves from: `bodega`, or else the only
    one holding every line's units not yet on a shipment (docs/api.md#shipments-of-parts):
    409 ORDER_NOT_SHIPPABLE; EXCEEDS_PENDING for a line asking more than it has not yet on
    a shipment, anywhere; SEVERAL_WAREHOUSES when no one warehouse (the one named) holds
    them all."""
    order = parts.order
    if order.status not in SHIPPABLE:
        raise Conflict(
            "ORDER_NOT_SHIPPABLE",
            f"Order {order.id} is {order.status}: only APROBADO or EN_ENVIO orders ship parts",
            details=[{"field": "pedidoId", "message": f"order is {order.status}"}],
        )
    by_line = {line.linea: line for line in order.lineas}
    pending = [_pending(parts, by_line[line.linea]) for line in lines]
    _exceeding(lines, [sum(left.values()) for left in pending])
    holding = sorted({w for left in pending for w in left})
    fits = [
        w
        for w in holding
        if all(line.cantidad <= left.get(w, 0) for line, left in zip(lines, pending, strict=True))
    ]
    if bodega is not None and bodega in fits:
        return bodega
    if bodega is None and len(fits) == 1:
        return fits[0]
    # Named or not, no single warehouse to leave from: say which hold the units.
    named = holding if bodega is not None else (fits or holding)
    raise Conflict(
        "SEVERAL_WAREHOUSES",
        f"The units are held in warehouses {', '.join(str(w) for w in named)}: "
        "a shipment leaves from one that holds them all, named in bodegaId",
        details=[{"field": "bodegaId", "message": f"units held in warehouse {w}"} for w in named],
    )


def _exceeding(lines: tuple[ShipmentLine, ...], pending: list[int]) -> None:
    """409 EXCEEDS_PENDING naming each line asking more than its `pending` units."""
    short = [
        {
            "field": f"lineas[{i}].cantidad",
            "message": f"line {line.linea} has {left} units not yet on a shipment",
        }
        for i, (line, left) in enumerate(zip(lines, pending, strict=True))
        if line.cantidad > left
    ]
    if short:
        raise Conflict(
            "EXCEEDS_PENDING",
            "More units than the order's lines have not yet on a shipment",
            details=short,
        )


def counted(parts: OrderParts, shipment: Shipment, sign: int = 1) -> dict[tuple[int, int], int]:
    """The order's units on shipments once this one is added (`sign` -1: deleted)."""
    assert shipment.bodega_id is not None
    after = dict(parts.on_shipments)
    for line in shipment.lineas:
        key = (line.linea, shipment.bodega_id)
        after[key] = after.get(key, 0) + sign * line.cantidad
    return after


def departure(parts: OrderParts, shipment: Shipment, whole: bool) -> dict[int, OrderLine]:
    """The order's lines a shipment's leaving changes, by line: its units on their way
    (never beyond a line's units: an order moved to EN_ENVIO by its own PATCH counts them
    all already); every line wholly when the order's own take-out took them (`whole`)."""
    carried = {line.linea: line.cantidad for line in shipment.lineas}
    changed = {}
    for line in parts.order.lineas:
        sent = (
            line.cantidad
            if whole
            else min(line.cantidad, line.cantidad_enviada + carried.get(line.linea, 0))
        )
        if sent != line.cantidad_enviada:
            changed[line.linea] = replace(line, cantidad_enviada=sent)
    return changed


def delivery(parts: OrderParts, shipment: Shipment) -> tuple[dict[int, OrderLine], bool]:
    """The order's lines a shipment's delivery changes, and whether every line of the
    order is then wholly delivered."""
    carried = {line.linea: line.cantidad for line in shipment.lineas}
    changed = {}
    for line in parts.order.lineas:
        got = min(line.cantidad, line.cantidad_entregada + carried.get(line.linea, 0))
        if got != line.cantidad_entregada:
            changed[line.linea] = replace(line, cantidad_entregada=got)
    after = [changed.get(line.linea, line) for line in parts.order.lineas]
    return changed, all(line.cantidad_entregada >= line.cantidad for line in after)


def on_its_way(shipment: Shipment) -> Conflict:
    return Conflict(
        "SHIPMENT_ON_ITS_WAY",
        f"Shipment {shipment.id} is {shipment.status}: only CREADO or ASIGNADO ones are deleted",
    )
