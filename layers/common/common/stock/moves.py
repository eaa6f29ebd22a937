"""The stock moves' contract (docs/api.md#stock-follows-orders): what the orders service
may ask the inventory to do with an order's units, the states the units' reservation
goes through, which move takes it from which state to which, and the inventory's routes
that carry them. The inventory makes the moves (inventory.service,
inventory.stock_repository); the orders' lifecycle and the stock repair ask for them.
Each reads the words and the rules here, one place each.

The words are those on the wire and in StockReservationsTable, and stay as they are: a
reservation written by an earlier version must still read.
"""

# The moves of an order's units: reserve them (an approval), take them out (a ship), give
# them back (a cancel of an approved order); and the two that undo a move whose order then
# lost its status write to another: put back (a take-out's) and force (a give-back's, or
# the reservation an approved order lacks: it holds the units whatever is available).
RESERVE, TAKE_OUT, GIVE_BACK = "reservar", "retirar", "devolver"
PUT_BACK, FORCE = "reponer", "forzar"
MOVES = (RESERVE, TAKE_OUT, GIVE_BACK, PUT_BACK, FORCE)

# A reservation's states: holding the order's units; handed over with them (taken out for
# its shipment: the order is EN_ENVIO, not the order's ENTREGADO, whatever the stored word
# suggests); released (given back). Only HELD holds units.
HELD, HANDED_OVER, RELEASED = "RESERVADA", "ENTREGADA", "LIBERADA"

# The states each move takes a reservation from (None: the order has none yet), and the
# one it leaves it in. A move that finds the reservation in the state it leaves was made
# before (a retry, a lost answer): it is done, once; any other state refuses it (NOT_HELD).
FROM: dict[str, tuple[str | None, ...]] = {
    RESERVE: (None, RELEASED),
    FORCE: (None, RELEASED),
    TAKE_OUT: (HELD,),
    GIVE_BACK: (HELD,),
    PUT_BACK: (HANDED_OVER,),
}
TO = {RESERVE: HELD, FORCE: HELD, TAKE_OUT: HANDED_OVER, GIVE_BACK: RELEASED, PUT_BACK: HELD}
# What undoes a move whose order then lost its move to another.
UNDOING = {RESERVE: GIVE_BACK, TAKE_OUT: PUT_BACK, GIVE_BACK: FORCE}
# The moves of units an order holds: an order approved before reservations existed holds
# none, and is reserved first (FORCE, as the repair would) so that it can still ship or
# cancel.
OF_HELD_UNITS = (TAKE_OUT, GIVE_BACK)

# The inventory's routes: the stock check, asked as the order's caller (with their
# token); the moves and the reservations, internal (common.http.service_app.INTERNAL): only
# another service's direct invoke reaches them.
STOCK_ROUTE = "/api/inventario/{id}/stock"
HOLDING_ROUTE = "/internal/reservas"
RESERVATION_ROUTE = HOLDING_ROUTE + "/{pedidoId}"
MOVE_ROUTE = RESERVATION_ROUTE + "/{accion}"
# A shipment of part of an order leaving with its units (docs/api.md#shipments-of-parts):
# keyed by the shipment, so asked again it takes nothing more.
PART_ROUTE = RESERVATION_ROUTE + "/envios/{envioId}"
# The refusals (409) the asking side acts on: the units are in no state the move starts
# from (another move holds or took them: decide again); a repair's move found the
# reservation changed since it read it (whoever changed it decides).
NOT_HELD, CHANGED = "RESERVATION_NOT_HELD", "RESERVATION_CHANGED"

# How an approval assigns each line's units to warehouses (docs/api.md#orders-of-several-lines):
# by priority (lower `prioridad` first, then id), as much as each has; or from the fewest
# warehouses that cover the whole order (ties as by priority). A line pinned to a
# warehouse takes only from there, whichever the strategy.
BY_PRIORITY, FEWEST_WAREHOUSES = "PRIORIDAD", "MENOS_BODEGAS"
STRATEGIES = (BY_PRIORITY, FEWEST_WAREHOUSES)
# An order holds at most this many lines; a line's units are in at most this many
# warehouses (what the services send each other is bounded by these).
MAX_LINES = 50
MAX_WAREHOUSES = 1000
# The batch stock check of an order being placed (internal: asked as a service), and the
# invariant check of a slice of the catalog the repair asks for each run, fixing what it
# finds.
CHECK_ROUTE = "/internal/existencias"
BALANCE_ROUTE = "/internal/existencias/cuadre"
# What the batch check says of each line.
LINE_OK, LINE_SHORT = "DISPONIBLE", "INSUFICIENTE"
LINE_UNKNOWN_PRODUCT, LINE_UNKNOWN_WAREHOUSE = "PRODUCTO_DESCONOCIDO", "BODEGA_DESCONOCIDA"
# The slices of the catalog the invariant check takes one at a time: the partitions of
# the products' byShard index (common.storage.tables.LIST_SHARDS).
CATALOG_SLICES = 16
# A return's units back into stock (docs/api.md#returns), keyed by the return: made once
# whatever the retries (its record in the stock ledger); asked again with other units,
# refused (RESTOCK_DIFFERS: another reception of the same return made it).
RESTOCK_ROUTE = "/internal/reingresos/{devolucionId}"
RESTOCK_DIFFERS = "RESTOCK_DIFFERS"
