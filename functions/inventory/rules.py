"""Inventory rules as plain functions: what a valid product and warehouse are, alerts,
stock checks. The product's and the warehouse's shapes (ProductFields, Product, Warehouse)
and the product's alert (in_alert) are the layer's (common.stock.records): the dashboard's
figures and the webhooks' events read products too."""

import re
from dataclasses import dataclass, field

from common.platform.errors import Conflict, Invalid, NotFound, invalid_field, not_found
from common.platform.ids import MAX_ID
from common.platform.validation import Checker
from common.stock import moves as stock
from common.stock.records import (
    DEFAULT_PRIORITY,
    PRINCIPAL_ID,
    Product,
    ProductFields,
    StockRow,
    Warehouse,
    WarehouseFields,
)
from common.stock.records import in_alert as in_alert

# A sku is a DynamoDB key (at most 2048 bytes); a code this long is a mistake anyway.
MAX_SKU = 100
MAX_DESCRIPTION = 4000
# As many digits as a stored quantity can have (DynamoDB: 38 significant digits).
_WHOLE_NUMBER = re.compile(r"[0-9]{1,40}")


@dataclass(frozen=True, kw_only=True)
class LineRequest:
    """What a move asks of one line of an order: its product and units, the warehouse it
    is pinned to (None: any), and, for a forced reservation, where the order says its
    units are held (common.stock.moves.FORCE)."""

    linea: int
    producto_id: int
    cantidad: int
    bodega_id: int | None = None
    asignaciones: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ReserveRequest:
    """An order's reservation as asked: its lines, and how their units are assigned to
    warehouses (common.stock.moves.STRATEGIES)."""

    pedido_id: int
    lineas: tuple[LineRequest, ...]
    estrategia: str
    desde: str  # when it was asked (common.platform.clock)


@dataclass(frozen=True, kw_only=True)
class HeldLine:
    """One line of an order in the stock ledger, keyed by (order, line): every stock move
    of the order is one transaction conditioned on each line's state, so none happens
    twice. `asignaciones`: where its units were reserved; `retenidas`: where it holds
    units now; `retiradas`: where its order's own take-out took them from."""

    pedido_id: int
    linea: int
    producto_id: int
    cantidad: int
    status: str  # RESERVADA, ENTREGADA or LIBERADA (common.stock.moves), stored as `estado`
    desde: str
    cambio: str
    asignaciones: dict[int, int] = field(default_factory=dict)
    retenidas: dict[int, int] = field(default_factory=dict)
    retiradas: dict[int, int] = field(default_factory=dict)
    # The shipments whose units left with this line first (docs/api.md#shipments-of-parts).
    envios: frozenset[int] = frozenset()

    def to_service(self) -> dict:
        return {
            "linea": self.linea,
            "productoId": self.producto_id,
            "cantidad": self.cantidad,
            "estado": self.status,
            "asignaciones": shown_units(self.asignaciones),
            "retenidas": shown_units(self.retenidas),
            "retiradas": shown_units(self.retiradas),
        }


@dataclass(frozen=True, kw_only=True)
class Reservation:
    """An order's units, all its lines; its state is its lines' (they move together), its
    `cambio` its first line's (a retried move claims the order there)."""

    pedido_id: int
    lineas: tuple[HeldLine, ...]

    @property
    def id(self) -> int:
        """Identified by its order, as lists of reservations are ordered (common.http.lists)."""
        return self.pedido_id

    @property
    def head(self) -> HeldLine:
        return self.lineas[0]

    @property
    def status(self) -> str:
        return self.head.status

    @property
    def cambio(self) -> str:
        return self.head.cambio

    def to_service(self) -> dict:
        """Everything of it, for the service that moves it (the API shows less)."""
        return {
            "pedidoId": self.pedido_id,
            "estado": self.status,
            "desde": self.head.desde,
            "cambio": self.cambio,
            "lineas": [line.to_service() for line in self.lineas],
        }


@dataclass(frozen=True)
class Moved:
    """A move's outcome: whether this call made it (False: it was made before), and the
    order's reservation as it is now."""

    applied: bool
    reservation: Reservation


@dataclass(frozen=True, kw_only=True)
class Holding:
    """Units of a product one line of an order holds in one warehouse, as
    `GET /api/inventario/{id}/reservas` shows them."""

    pedido_id: int
    linea: int
    bodega_id: int
    cantidad: int
    desde: str


def holdings(line: HeldLine) -> list[Holding]:
    return [
        Holding(
            pedido_id=line.pedido_id,
            linea=line.linea,
            bodega_id=bodega,
            cantidad=units,
            desde=line.desde,
        )
        for bodega, units in sorted(line.retenidas.items())
    ]


def shown_units(units: dict[int, int]) -> list[dict]:
    """Units by warehouse as the services and the API show them: ascending bodegaId."""
    return [{"bodegaId": b, "cantidad": q} for b, q in sorted(units.items()) if q]


def field_of(linea: int, name: str) -> str:
    """A line's field as details name it: by its index from 0 (`lineas[2].cantidad`)."""
    return f"lineas[{linea - 1}].{name}"


def short_line(linea: int, producto_id: int, available: int, *, on_hand: bool = False) -> dict:
    """A detail naming a line short of units, and the units there are."""
    what = "on hand" if on_hand else "available"
    return {
        "field": field_of(linea, "cantidad"),
        "message": f"only {available} of product {producto_id} {what}",
    }


def insufficient_stock(short: list[dict], *, on_hand: bool = False) -> Conflict:
    """An approval (or a take-out, `on_hand`) refused: every short line, by its details."""
    verb = "take out" if on_hand else "reserve"
    lines = "; ".join(f"{d['field']}: {d['message']}" for d in short)
    return Conflict(
        "INSUFFICIENT_STOCK", f"Cannot {verb} the order's units: {lines}", details=short
    )


def transfer_short(producto_id: int, desde: int, available: int) -> Conflict:
    message = f"only {available} of product {producto_id} available in warehouse {desde}"
    return Conflict(
        "INSUFFICIENT_STOCK",
        f"Cannot transfer: {message}",
        details=[{"field": "cantidad", "message": message}],
    )


def warehouse_closing(bodega_id: int) -> Conflict:
    """Units put into a warehouse while a DELETE of it looks for units there."""
    return Conflict("CONCURRENT_UPDATE", f"Warehouse {bodega_id} is being deleted; retry")


def product_gone(product_id: int) -> Conflict:
    """A move on a product deleted meanwhile: the order's, not the request's, problem."""
    return Conflict("PRODUCT_NOT_FOUND", f"Product {product_id} no longer exists")


def changed_since(pedido_id: int) -> Conflict:
    """A repair's move of units that moved since the repair read them: whoever moved them
    (an order's own request) decides, and the repair leaves them alone."""
    return Conflict(stock.CHANGED, f"Order {pedido_id}'s units moved since they were read")


def parse_part(body: dict) -> tuple[int, dict[int, int]]:
    """A part take-out's body (common.stock.client): its warehouse and its units by line."""
    check = Checker(body)
    bodega_id = check.identifier("bodegaId")
    parts: dict[int, int] = {}
    for line in check.objects("lineas", minimum=1, maximum=stock.MAX_LINES) or []:
        linea, cantidad = line.identifier("linea"), line.count("cantidad", minimum=1)
        if linea in parts:
            line.fail("linea", "names a line already sent")
        elif linea is not None and cantidad is not None:
            parts[linea] = cantidad
    check.done()
    return bodega_id, parts


def not_held(pedido_id: int, status: str | None) -> Conflict:
    """A take-out or give-back of units the order does not hold (another move won)."""
    now = f"its units are {status.lower()}" if status else "it holds no units"
    return Conflict(stock.NOT_HELD, f"Order {pedido_id}: {now}")


def stock_in_several_warehouses(product_id: int, bodegas: list[int]) -> Conflict:
    """A new stockActual for a product whose units are in several warehouses: which one
    it counts cannot be told (set each warehouse's count instead)."""
    return Conflict(
        "STOCK_IN_SEVERAL_WAREHOUSES",
        f"Product {product_id}'s units are in {len(bodegas)} warehouses: set each one's "
        f"count (PUT /api/inventario/{product_id}/existencias/{{bodegaId}})",
        details=[
            {"field": "bodegaId", "message": f"warehouse {bodega} holds units of it"}
            for bodega in bodegas
        ],
    )


def product_reserved(product: Product) -> Conflict:
    return Conflict(
        "PRODUCT_RESERVED",
        f"Product {product.id} has {product.stock_reservado} units reserved by approved "
        "orders: ship or cancel them first",
    )


def duplicate_sku(sku: str) -> Invalid:
    """Skus are unique across products (docs/api.md#the-product)."""
    return Invalid("DUPLICATE_SKU", f"A product with sku {sku!r} already exists")


def unknown_product(product_id: int) -> NotFound:
    return not_found("PRODUCT_NOT_FOUND", "Product", product_id)


def parse_product(body: dict) -> ProductFields:
    return parse_new_product(body)[0]


def parse_new_product(body: dict) -> tuple[ProductFields, int]:
    """A product's fields, and the warehouse its stockActual goes into (`bodegaId`,
    PRINCIPAL when left out)."""
    check = Checker(body)
    bodega = check.identifier("bodegaId") if body.get("bodegaId") is not None else PRINCIPAL_ID
    fields = ProductFields(
        sku=check.text("sku", max_length=MAX_SKU),
        nombre=check.text("nombre"),
        precio_unitario=check.number("precioUnitario", minimum=0),
        stock_actual=check.count("stockActual", minimum=0),
        umbral_minimo=check.count("umbralMinimo", minimum=0),
        bodega=check.text("bodega", required=False),
        descripcion=check.text("descripcion", required=False, max_length=MAX_DESCRIPTION),
    )
    check.done()
    return fields, bodega


def product(product_id: int, fields: ProductFields, stock_reservado: int = 0) -> Product:
    return Product(id=product_id, stock_reservado=stock_reservado, **vars(fields))


def has_stock(product: ProductFields, cantidad: int) -> bool:
    return product.stock_actual >= cantidad


def parse_cantidad(raw: str | None) -> int:
    """The stock check's `cantidad` query parameter: a whole number >= 0."""
    if raw is None:
        raise invalid_field("cantidad", "is required")
    if not _WHOLE_NUMBER.fullmatch(raw):
        raise invalid_field("cantidad", "must be an integer >= 0")
    return int(raw)


def parse_after(raw: str | None) -> int:
    """Where a page of reservations starts: after this pedidoId (0: from the first)."""
    if raw is None:
        return 0
    if not _WHOLE_NUMBER.fullmatch(raw) or int(raw) > MAX_ID:
        raise invalid_field("after", f"must be an integer from 0 to {MAX_ID}")
    return int(raw)


def parse_move(raw: str) -> str:
    """One of the moves another service may ask of an order's units (common.stock.moves: the
    orders service's lifecycle, and the repair of what a crash left)."""
    if raw not in stock.MOVES:
        moves = ", ".join(stock.MOVES)
        raise NotFound("MOVE_NOT_FOUND", f"No stock move {raw!r}: one of {moves}")
    return raw


# A reservation's `cambio` as the repair read it: what its move is conditioned on.
MAX_SEEN = 64


def parse_seen(body: dict) -> str | None:
    """The `cambio` a repair read of the reservation (absent: an order's own move), so
    that its move is made only on the reservation as it read it."""
    check = Checker(body)
    seen = check.text("cambio", required=False, max_length=MAX_SEEN)
    check.done()
    return seen


def _units_of(check: Checker, field: str) -> dict[int, int]:
    """Units by warehouse as the services send them: [{"bodegaId", "cantidad"}]."""
    units: dict[int, int] = {}
    for entry in check.objects(field, minimum=0, maximum=stock.MAX_WAREHOUSES) or []:
        bodega, cantidad = entry.identifier("bodegaId"), entry.count("cantidad", minimum=1)
        if bodega is not None and cantidad is not None:
            units[bodega] = units.get(bodega, 0) + cantidad
    return units


def _line_request(check: Checker, default_line: int) -> LineRequest | None:
    linea = default_line
    if check.body.get("linea") is not None:
        linea = check.integer("linea", minimum=1, maximum=stock.MAX_LINES)
    producto_id, cantidad = check.identifier("productoId"), check.count("cantidad", minimum=1)
    bodega = check.identifier("bodegaId") if check.body.get("bodegaId") is not None else None
    held = _units_of(check, "asignaciones") if check.body.get("asignaciones") else {}
    if linea is None or producto_id is None or cantidad is None:
        return None
    return LineRequest(
        linea=linea, producto_id=producto_id, cantidad=cantidad, bodega_id=bodega, asignaciones=held
    )


def parse_reservation(pedido_id: int, body: dict, now: str) -> ReserveRequest:
    """What an order asks to hold, from the asking service: its lines (`lineas`; an
    earlier version's one `productoId` and `cantidad` are its one line) and the strategy
    that assigns their units to warehouses."""
    check = Checker(body)
    if "lineas" in body:
        lines = [
            _line_request(line, index)
            for index, line in enumerate(
                check.objects("lineas", minimum=1, maximum=stock.MAX_LINES) or [], start=1
            )
        ]
    else:
        lines = [_line_request(check, 1)]
    estrategia = stock.BY_PRIORITY
    if body.get("estrategia") is not None:
        estrategia = check.choice("estrategia", stock.STRATEGIES)
    check.done()
    requested = tuple(line for line in lines if line is not None)
    return ReserveRequest(pedido_id=pedido_id, lineas=requested, estrategia=estrategia, desde=now)


@dataclass(frozen=True, kw_only=True)
class Restocked:
    """Units of one product a return put back into one warehouse (docs/api.md#returns)."""

    producto_id: int
    bodega_id: int
    cantidad: int


def parse_restock(body: dict) -> tuple[Restocked, ...]:
    """What a reception puts back, from the orders service: `lineas` of `productoId`,
    `bodegaId` and `cantidad` (at least 1)."""
    check = Checker(body)
    found = []
    for line in check.objects("lineas", minimum=1, maximum=stock.MAX_LINES) or []:
        product, bodega = line.identifier("productoId"), line.identifier("bodegaId")
        cantidad = line.count("cantidad", minimum=1)
        if product is not None and bodega is not None and cantidad is not None:
            found.append(Restocked(producto_id=product, bodega_id=bodega, cantidad=cantidad))
    check.done()
    return tuple(found)


def restock_mark(lines: tuple[Restocked, ...]) -> str:
    """What a restock put back, as its ledger record keeps it: a retry must ask the same."""
    units = sorted((line.producto_id, line.bodega_id, line.cantidad) for line in lines)
    return ";".join(f"{p}:{b}:{c}" for p, b, c in units)


def unknown_reservation(pedido_id: int) -> NotFound:
    return not_found("RESERVATION_NOT_FOUND", "Reservation of order", pedido_id)


# -- warehouses (docs/api.md#warehouses) ----------------------------------------------------

CODE = re.compile(r"[A-Z0-9-]{1,32}")
MAX_PRIORITY = 1000


def _warehouse_fields(check: Checker, codigo: str | None) -> WarehouseFields:
    prioridad = DEFAULT_PRIORITY
    if check.body.get("prioridad") is not None:
        prioridad = check.integer("prioridad", minimum=0, maximum=MAX_PRIORITY)
    fields = WarehouseFields(
        codigo=codigo or "",
        nombre=check.text("nombre"),
        region=check.text("region", required=False),
        prioridad=prioridad,
    )
    check.done()
    return fields


def parse_warehouse(body: dict) -> WarehouseFields:
    """A new warehouse: `codigo` (1-32 of A-Z, 0-9, -), `nombre`, `region`, `prioridad`."""
    check = Checker(body)
    codigo = check.text("codigo", max_length=32)
    if codigo is not None and not CODE.fullmatch(codigo):
        check.fail("codigo", "must be 1 to 32 characters of A-Z, 0-9 and -")
        codigo = None
    return _warehouse_fields(check, codigo)


def parse_warehouse_changes(current: Warehouse, body: dict) -> Warehouse:
    """A replace of `current`: its `nombre`, `region` and `prioridad`; its code never
    changes (a `codigo` sent is ignored, as the service's own fields are)."""
    fields = _warehouse_fields(Checker(body), current.codigo)
    return Warehouse(id=current.id, creado_en=current.creado_en, **vars(fields))


def duplicate_code(codigo: str) -> Conflict:
    return Conflict("DUPLICATE_CODE", f"A warehouse with code {codigo!r} already exists")


def unknown_warehouse(bodega_id: int) -> NotFound:
    return not_found("WAREHOUSE_NOT_FOUND", "Warehouse", bodega_id)


def warehouse_in_use(bodega_id: int, holding: list[int] | None = None) -> Conflict:
    """PRINCIPAL, or a warehouse some product holds units or reservations in."""
    if bodega_id == PRINCIPAL_ID:
        return Conflict("WAREHOUSE_IN_USE", "PRINCIPAL is every stack's warehouse: it stays")
    details = [
        {"field": "productoId", "message": f"product {ident} has units or reservations there"}
        for ident in holding or []
    ]
    return Conflict(
        "WAREHOUSE_IN_USE",
        f"Warehouse {bodega_id} holds units or reservations: move them out first",
        details=details,
    )


def in_use(bodega_id: int, products: list[Product]) -> list[int]:
    """The products holding units or reservations in the warehouse."""
    return [p.id for p in products if (row := p.row(bodega_id)) is not None and row.holds_units]


def shown_row(row: StockRow, codigo: str) -> dict:
    """A product's row in a warehouse as the API shows it (docs/api.md#stock-per-warehouse)."""
    return {
        "bodegaId": row.bodega_id,
        "codigo": codigo,
        "stockActual": row.stock_actual,
        "stockReservado": row.stock_reservado,
        "stockDisponible": row.stock_disponible,
    }


# -- the invariant check (docs/api.md#stock-per-warehouse) ------------------------------------


def held_units(lines: list[HeldLine]) -> dict[int, int]:
    """The units a product's reservation lines hold, by warehouse."""
    held: dict[int, int] = {}
    for line in lines:
        for bodega, units in line.retenidas.items():
            held[bodega] = held.get(bodega, 0) + units
    return held


def drift(product: Product, held: dict[int, int], stored_available: int | None) -> list[dict]:
    """Where a product's counters differ from its ledger: in each warehouse, reserved is
    the sum of its reservations and available is on hand less reserved; its totals are
    the sums over its warehouses. [] when they hold."""
    found = []
    rows = {row.bodega_id: row for row in product.existencias}

    def finding(bodega: int | None, campo: str, visto: int, esperado: int) -> None:
        if visto != esperado:
            found.append(
                {
                    "productoId": product.id,
                    "bodegaId": bodega,
                    "campo": campo,
                    "visto": visto,
                    "esperado": esperado,
                }
            )

    for bodega in sorted(set(rows) | set(held)):
        row = rows.get(bodega)
        reserved = row.stock_reservado if row else 0
        finding(bodega, "stockReservado", reserved, held.get(bodega, 0))
        if row is not None and row.guardado is not None:
            finding(bodega, "stockDisponible", row.guardado, row.stock_disponible)
    finding(None, "stockActual", product.stock_actual, sum(r.stock_actual for r in rows.values()))
    finding(None, "stockReservado", product.stock_reservado, sum(held.values()))
    if stored_available is not None:
        finding(None, "stockDisponible", stored_available, product.stock_disponible)
    return found


def parse_count(body: dict) -> int:
    """A warehouse's count (PUT .../existencias/{bodegaId}): `stockActual`, >= 0."""
    check = Checker(body)
    actual = check.count("stockActual", minimum=0)
    check.done()
    return actual


def parse_transfer(body: dict) -> tuple[int, int, int]:
    """A transfer: from `desde` to `hacia` (two warehouses), `cantidad` units (>= 1)."""
    check = Checker(body)
    desde, hacia = check.identifier("desde"), check.identifier("hacia")
    cantidad = check.count("cantidad", minimum=1)
    if desde is not None and desde == hacia:
        check.fail("hacia", "must be another warehouse than desde")
    check.done()
    return desde, hacia, cantidad


def parse_balance(body: dict) -> tuple[int, int, str]:
    """What the repair asks the invariant check of: a byShard partition of the catalog,
    after which id, and the moves it leaves for later (made after that instant)."""
    check = Checker(body)
    shard = check.integer("shard", minimum=0, maximum=stock.CATALOG_SLICES - 1)
    after = check.integer("despues", minimum=0, maximum=MAX_ID) if "despues" in body else 0
    settled_before = check.text("asentadoAntes", max_length=MAX_SEEN)
    check.done()
    return shard, after, settled_before


def checked_line(
    line: LineRequest, products: dict[int, Product], warehouses: dict[int, Warehouse]
) -> dict:
    """What the batch stock check says of one line: the contract's rule (stockActual >=
    cantidad) of its product, or of the warehouse it names; and the product as it is."""
    product = products.get(line.producto_id)
    answer: dict = {"linea": line.linea, "productoId": line.producto_id}
    if product is None:
        return {**answer, "estado": stock.LINE_UNKNOWN_PRODUCT}
    if line.bodega_id is not None and line.bodega_id not in warehouses:
        return {**answer, "estado": stock.LINE_UNKNOWN_WAREHOUSE}
    on_hand = product.stock_actual
    if line.bodega_id is not None:
        row = product.row(line.bodega_id)
        on_hand = row.stock_actual if row else 0
    return {
        **answer,
        "estado": stock.LINE_OK if on_hand >= line.cantidad else stock.LINE_SHORT,
        "sku": product.sku,
        "nombre": product.nombre,
        "precioUnitario": product.precio_unitario,
    }
