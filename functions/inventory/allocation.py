"""Where an approval takes each line's units from (docs/api.md#orders-of-several-lines): a
plain function of the lines, their products' stock per warehouse as read and the
warehouses' priorities. The stock repository commits the plan in one transaction whose
conditions check every count again, and plans again when they no longer hold.

- PRIORIDAD: each line from the warehouses holding units of its product available, by
  `prioridad` then id, as much as each has, the rest from the next.
- MENOS_BODEGAS: the fewest warehouses that cover the whole order, the first such set in
  priority order; each line then by priority within them.
- A line pinned to a warehouse (`bodegaId`) takes only from there.
- Forced (an approved order whose units are not held: the repair, or an order approved
  before reservations): wherever the order says they were held, else as by priority,
  and what is not available from the first warehouse it may use: the units are the
  order's whatever is left.

Lines name different products (an order names a product once), so whether a line can be
covered does not depend on the others: the strategy only chooses where.
"""

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from common.stock import moves
from common.stock.records import PRINCIPAL_ID, Product, Warehouse
from inventory.rules import LineRequest, short_line

# Sets of warehouses MENOS_BODEGAS tries before it settles for a greedy cover.
MAX_COMBINATIONS = 20_000


@dataclass
class Plan:
    """Units by warehouse for each line (by its number); or why it cannot be: the lines
    short of units (details) and the products that do not exist."""

    assigned: dict[int, dict[int, int]] = field(default_factory=dict)
    short: list[dict] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)

    @property
    def feasible(self) -> bool:
        return not self.short and not self.missing


def plan(
    lines: Sequence[LineRequest],
    products: Mapping[int, Product],
    warehouses: Mapping[int, Warehouse],
    estrategia: str,
    force: bool = False,
) -> Plan:
    found = Plan(missing=[line.producto_id for line in lines if line.producto_id not in products])
    if found.missing:
        return found
    rank = _ranking(warehouses)
    available = {line.linea: _available(line, products[line.producto_id], rank) for line in lines}
    if force:
        found.assigned = {
            line.linea: _forced(line, products[line.producto_id], available[line.linea], rank)
            for line in lines
        }
        return found
    for line in lines:
        if sum(available[line.linea].values()) < line.cantidad:
            total = sum(available[line.linea].values())
            found.short.append(short_line(line.linea, line.producto_id, total))
    if found.short:
        return found
    allowed = None
    if estrategia == moves.FEWEST_WAREHOUSES:
        allowed = _fewest(lines, available, rank)
    found.assigned = {
        line.linea: _by_priority(line.cantidad, available[line.linea], rank, allowed)
        for line in lines
    }
    return found


def _ranking(warehouses: Mapping[int, Warehouse]) -> dict[int, tuple[int, int]]:
    """Each warehouse's place: lower `prioridad` first, then lower id."""
    return {ident: (w.prioridad, ident) for ident, w in warehouses.items()}


def _available(line: LineRequest, product: Product, rank: Mapping) -> dict[int, int]:
    """The units of the line's product available in each warehouse it may take from, in
    the warehouses' order."""
    rows = [
        row
        for row in product.existencias
        if row.bodega_id in rank and (line.bodega_id is None or row.bodega_id == line.bodega_id)
    ]
    rows.sort(key=lambda row: rank[row.bodega_id])
    return {row.bodega_id: row.stock_disponible for row in rows if row.stock_disponible > 0}


def _by_priority(
    cantidad: int, available: Mapping[int, int], rank: Mapping, allowed: set[int] | None = None
) -> dict[int, int]:
    taken: dict[int, int] = {}
    for bodega in sorted(available, key=lambda b: rank[b]):
        if cantidad == 0:
            break
        if allowed is not None and bodega not in allowed:
            continue
        units = min(cantidad, available[bodega])
        taken[bodega] = units
        cantidad -= units
    return taken


def _fewest(
    lines: Sequence[LineRequest], available: Mapping[int, Mapping[int, int]], rank: Mapping
) -> set[int]:
    """The fewest warehouses from which every line can be covered (a pinned line's own is
    one of them), the first such set in priority order."""
    pinned = {line.bodega_id for line in lines if line.bodega_id is not None}
    free = [line for line in lines if line.bodega_id is None]
    options = sorted(
        {b for line in free for b in available[line.linea]} - pinned, key=lambda b: rank[b]
    )

    def covers(chosen: Iterable[int]) -> bool:
        within = set(chosen) | pinned
        return all(
            sum(q for b, q in available[line.linea].items() if b in within) >= line.cantidad
            for line in free
        )

    tried = 0
    for size in range(len(options) + 1):
        for chosen in itertools.combinations(options, size):
            tried += 1
            if covers(chosen):
                return set(chosen) | pinned
            if tried >= MAX_COMBINATIONS:
                return _greedy(free, available, options) | pinned
    return set(options) | pinned


def _greedy(
    lines: Sequence[LineRequest], available: Mapping[int, Mapping[int, int]], options: list[int]
) -> set[int]:
    """A cover built one warehouse at a time, each the one that covers most of what is
    still needed (ties by priority: `options` is in that order)."""
    need = {line.linea: line.cantidad for line in lines}
    chosen: set[int] = set()
    while any(need.values()):
        best = max(
            (b for b in options if b not in chosen),
            key=lambda b: sum(min(need[n], available[n].get(b, 0)) for n in need),
        )
        chosen.add(best)
        for linea in need:
            need[linea] -= min(need[linea], available[linea].get(best, 0))
    return chosen


def _forced(
    line: LineRequest, product: Product, available: Mapping[int, int], rank: Mapping
) -> dict[int, int]:
    if sum(line.asignaciones.values()) == line.cantidad:
        return dict(line.asignaciones)
    taken = _by_priority(line.cantidad, available, rank)
    rest = line.cantidad - sum(taken.values())
    if rest:
        rows = sorted(
            (row.bodega_id for row in product.existencias if row.bodega_id in rank),
            key=lambda b: rank[b],
        )
        first = line.bodega_id or (rows[0] if rows else PRINCIPAL_ID)
        taken[first] = taken.get(first, 0) + rest
    return taken
