"""The dashboard's answer (docs/api.md#dashboard) from what its figures table holds, as a
plain function of what was read and of the clock.

Every figure is a sum of counters over the counter shards (common.dashboard.layout), but one:
how many shipments are late depends on the clock, and nothing is written when a
shipment becomes late. The shipments not delivered are counted by the hour they are due
in; those due in a later hour than now are not late, those due in an earlier hour are,
and of those due in this hour, each one's own estimate says. So `atrasados` is the
shipments not delivered, less those due in later hours (counters), less those of this
hour not yet due (this hour's items): a read of a few items whatever the data.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from common.dashboard import layout
from common.platform.clock import to_iso

# As the orders and the shipping services have them (tests/unit/test_dashboard.py holds
# them together: this function carries neither package).
ORDER_STATUSES = ("PENDIENTE", "APROBADO", "EN_ENVIO", "ENTREGADO", "CANCELADO")
SHIPMENT_STATUSES = ("CREADO", "ASIGNADO", "EN_RUTA", "ENTREGADO")
DELIVERED = "ENTREGADO"
# The services the dashboard checks, by the name it shows them under.
SERVICES = ("inventario", "pedidos", "envios", "notificaciones")
UP, DOWN = "UP", "DOWN"


@dataclass(frozen=True)
class Stored:
    """What one read of the figures table found: the counter shards, the items of the
    shipments due in the current hour, and the newest orders and shipments of each list
    shard (as the API shows them)."""

    counters: list[Mapping[str, object]]
    due_now: list[Mapping[str, object]]
    newest: Mapping[str, list[list[dict]]] = field(default_factory=dict)
    codes: Mapping[int, str] = field(default_factory=dict)  # each warehouse's, by its id


def answer(stored: Stored, services: Mapping[str, str], now: datetime) -> dict:
    """The dashboard as GET /api/dashboard answers it, at `now` (UTC)."""
    totals = summed(stored.counters)
    by_warehouse = warehouses(totals, stored.codes)
    return {
        "productos": {
            "total": _count(totals[layout.PRODUCTS]),
            "enAlerta": _count(totals[layout.IN_ALERT]),
            "valorStock": totals[layout.STOCK_VALUE],
            "bodegas": by_warehouse,  # what valorStock is made of, beside it
        },
        "bodegas": by_warehouse,
        "pedidos": {
            **_by_status(totals, layout.order_status, ORDER_STATUSES),
            "ultimos": newest(stored.newest.get(layout.ORDERS, []), layout.NEWEST[layout.ORDERS]),
        },
        "envios": {
            **_by_status(totals, layout.shipment_status, SHIPMENT_STATUSES),
            "atrasados": late(totals, stored.due_now, now),
            "entregadosATiempo": on_time_share(totals),
            "ultimos": newest(
                stored.newest.get(layout.SHIPMENTS, []), layout.NEWEST[layout.SHIPMENTS]
            ),
        },
        "devoluciones": {"abiertas": _count(totals[layout.OPEN_RETURNS])},
        "ventasPorDia": sales_by_day(totals, now),
        "servicios": {name: services.get(name, DOWN) for name in SERVICES},
        "generadoEn": to_iso(now),
    }


Totals = defaultdict[str, Decimal]  # a counter's sum; 0 for one never written


def summed(counters: Iterable[Mapping[str, object]]) -> Totals:
    """Each counter summed over the shards (anything in them that is not a number, the
    items' keys, left out)."""
    totals: Totals = defaultdict(Decimal)
    for shard in counters:
        for name, value in shard.items():
            if isinstance(value, int | Decimal) and not isinstance(value, bool):
                totals[name] += Decimal(value)
    return totals


def warehouse_ids(counters: Iterable[Mapping[str, object]]) -> list[int]:
    """The warehouses the counters count units of."""
    found = {layout.warehouse_of(name) for shard in counters for name in shard}
    return sorted({place[0] for place in found if place is not None})


def warehouses(totals: Totals, codes: Mapping[int, str]) -> list[dict]:
    """Each warehouse's units and their value, in ascending id: those holding units (and
    that exist: a warehouse is deleted only once it holds none)."""
    by_warehouse: dict[int, dict[str, Decimal]] = defaultdict(dict)
    for name, value in totals.items():
        place = layout.warehouse_of(name)
        if place is not None:
            by_warehouse[place[0]][place[1]] = value
    return [
        {
            "bodegaId": ident,
            "codigo": codes[ident],
            "unidades": _count(counts.get(layout.UNITS, 0)),
            "valor": counts.get(layout.VALUE, Decimal(0)),
        }
        for ident, counts in sorted(by_warehouse.items())
        if ident in codes and counts.get(layout.UNITS)
    ]


def _count(value: Decimal | int) -> int:
    return int(value)


def _by_status(totals: Totals, counter: Callable[[str], str], statuses: tuple[str, ...]) -> dict:
    by_status = {status: _count(totals[counter(status)]) for status in statuses}
    return {"total": sum(by_status.values()), "porEstado": by_status}


def late(totals: Totals, due_now: Iterable[Mapping[str, object]], now: datetime) -> int:
    """The shipments not delivered whose estimate is before `now`."""
    pending = sum(
        _count(totals[layout.shipment_status(status)])
        for status in SHIPMENT_STATUSES
        if status != DELIVERED
    )
    hour = layout.hour_at(now)
    later = sum(
        _count(value)
        for name, value in totals.items()
        if name.startswith(layout.DUE_PREFIX) and name[len(layout.DUE_PREFIX) :] > hour
    )
    moment = to_iso(now)
    not_yet = sum(
        1
        for item in due_now
        for name, estimate in item.items()
        if name.startswith(layout.DUE_ENTRY_PREFIX) and str(estimate) >= moment
    )
    # Never below none: the counters and this hour's items are written together, but a
    # read of several items may fall between two writes.
    return max(0, pending - later - not_yet)


def on_time_share(totals: Totals) -> float | None:
    """The share of the delivered shipments delivered on or before their estimate; None
    before the first."""
    delivered = _count(totals[layout.shipment_status(DELIVERED)])
    if not delivered:
        return None
    return _count(totals[layout.ON_TIME]) / delivered


def sales_by_day(totals: Totals, now: datetime) -> list[dict]:
    """The last DAYS days (UTC), oldest first, each one there: its orders, and the total
    of those not cancelled."""
    days = [(now - timedelta(days=back)).strftime("%Y-%m-%d") for back in range(layout.DAYS)]
    return [
        {
            "fecha": day,
            "pedidos": _count(totals[layout.day_orders(day)]),
            "total": totals[layout.day_total(day)],
        }
        for day in reversed(days)
    ]


def newest(lists: Iterable[list[dict]], count: int) -> list[dict]:
    """The `count` newest (highest ids) of the list shards' items, newest first."""
    items = [item for shard in lists for item in shard]
    return sorted(items, key=lambda item: item["id"], reverse=True)[:count]
