"""What the dashboard's figures table (DashboardFiguresTable) holds, and under which keys
(docs/architecture.md, "The dashboard's figures"). Its writer is the figures function
(functions/dashboard_figures), its reader the dashboard's (functions/dashboard); this is
the one place both read the layout from, and common.dashboard.table the one way both
read its items.

- `cifras#<n>`, n < COUNTER_SHARDS: counters, each a top-level number named for what it
  counts (`productos`, `pedidos:APROBADO`, `dia:2026-11-27:total`, `vence:2026-11-28T14`,
  `bodega:3:unidades` ...). A figure is the sum of its counter over the shards: a batch
  of changes adds to one shard, any, so that no key takes every write.
- `vence#<hour>#<n>`: the shipments not delivered that are due in that hour (UTC) and
  whose id is n modulo DUE_SHARDS, one attribute `e:<id>` each holding its
  `fechaEstimadaEntrega`: what tells, within the current hour, those late from those not.
- `ultimos#<kind>#<n>`: the newest orders (shipments) whose id is n modulo LIST_SHARDS,
  as the API shows them, newest first, at most the dashboard's count of them.
- `aporte#<kind>#<id>`: what one product, order or shipment adds to the counters now
  (its share), and the stream record that made it so: a record is applied once, and a
  backfill finds what is counted and what is not.
"""

from datetime import datetime, timedelta

KEY = "clave"
COUNTER_SHARDS = 8
DUE_SHARDS = 8
LIST_SHARDS = 8

# The counters.
PRODUCTS = "productos"
IN_ALERT = "enAlerta"
STOCK_VALUE = "valorStock"
ON_TIME = "entregadosATiempo"  # shipments delivered on or before their estimate
OPEN_RETURNS = "devoluciones:abiertas"  # returns SOLICITADA or APROBADA
ORDERS_PREFIX = "pedidos:"
SHIPMENTS_PREFIX = "envios:"
DAY_PREFIX = "dia:"
DUE_PREFIX = "vence:"
# A warehouse's units and their value (`bodega:3:unidades`, `bodega:3:valor`).
WAREHOUSE_PREFIX = "bodega:"
UNITS, VALUE = "unidades", "valor"
# A shipment due, in its hour's item: "e:" and its id.
DUE_ENTRY_PREFIX = "e:"

ORDERS, SHIPMENTS = "pedidos", "envios"
# How many of the newest of each the dashboard shows.
NEWEST = {ORDERS: 5, SHIPMENTS: 3}
DAYS = 14
# A counter of a day or an hour this far behind now is read no more (the dashboard reads
# the last DAYS days and the hours from the current one on): it is neither added to nor
# kept. The margin covers clocks a little apart.
PAST_DAYS = DAYS + 2
PAST_HOURS = 2


def counter_key(shard: int) -> str:
    return f"cifras#{shard}"


def counter_keys() -> list[str]:
    return [counter_key(shard) for shard in range(COUNTER_SHARDS)]


def due_key(hour: str, ident: int) -> str:
    return f"vence#{hour}#{ident % DUE_SHARDS}"


def due_keys(hour: str) -> list[str]:
    return [due_key(hour, shard) for shard in range(DUE_SHARDS)]


def list_key(kind: str, ident: int) -> str:
    return f"ultimos#{kind}#{ident % LIST_SHARDS}"


def list_keys(kind: str) -> list[str]:
    return [list_key(kind, shard) for shard in range(LIST_SHARDS)]


def due_entry(ident: int) -> str:
    """A shipment's attribute in its hour's item."""
    return f"{DUE_ENTRY_PREFIX}{ident}"


def share_key(kind: str, ident: int) -> str:
    return f"aporte#{kind}#{ident}"


def order_status(status: str) -> str:
    return f"{ORDERS_PREFIX}{status}"


def shipment_status(status: str) -> str:
    return f"{SHIPMENTS_PREFIX}{status}"


def warehouse(bodega_id: int, what: str) -> str:
    """A warehouse's counter: its units (UNITS), or their value (VALUE)."""
    return f"{WAREHOUSE_PREFIX}{bodega_id}:{what}"


def warehouse_of(counter: str) -> tuple[int, str] | None:
    """(its warehouse, what it counts) of a warehouse's counter; None for any other."""
    if not counter.startswith(WAREHOUSE_PREFIX):
        return None
    ident, _, what = counter[len(WAREHOUSE_PREFIX) :].partition(":")
    return int(ident), what


def day_orders(day: str) -> str:
    return f"{DAY_PREFIX}{day}:pedidos"


def day_total(day: str) -> str:
    return f"{DAY_PREFIX}{day}:total"


def due(hour: str) -> str:
    return f"{DUE_PREFIX}{hour}"


def day_of(timestamp: str) -> str:
    """The UTC day of an API timestamp (common.platform.clock): `2026-11-27`."""
    return timestamp[:10]


def hour_of(timestamp: str) -> str:
    """The UTC hour of an API timestamp: `2026-11-27T14`."""
    return timestamp[:13]


def hour_at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H")


def is_past(counter: str, now: datetime) -> bool:
    """Whether a counter is of a day or an hour the dashboard reads no more."""
    if counter.startswith(DAY_PREFIX):
        return day_of(counter[len(DAY_PREFIX) :]) < (now - timedelta(days=PAST_DAYS)).strftime(
            "%Y-%m-%d"
        )
    if counter.startswith(DUE_PREFIX):
        return counter[len(DUE_PREFIX) :] < hour_at(now - timedelta(hours=PAST_HOURS))
    return False
