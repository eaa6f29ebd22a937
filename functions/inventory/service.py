"""Inventory use cases, one function each; the repositories are passed in."""

from typing import Protocol

from common.platform.errors import Invalid, NotFound, invalid_field
from common.stock import moves
from common.stock.records import Warehouse
from common.storage.paging import Page
from inventory import rules
from inventory.rules import Holding, Moved, Product, Reservation, ReserveRequest


class Products(Protocol):
    """What the use cases need of product storage (DynamoDB, or a fake in tests)."""

    def next_id(self) -> int: ...
    def get(self, product_id: int) -> Product: ...
    def several(self, idents: list[int]) -> dict[int, Product]: ...
    def page(self, after: int, limit: int) -> Page: ...
    def alerts_page(self, after: int, limit: int) -> Page: ...
    def add(self, product: Product, bodega_id: int = ...) -> None: ...
    def replace(self, product: Product) -> Product: ...
    def remove(self, product_id: int) -> None: ...


class Warehouses(Protocol):
    """What the use cases need of warehouse storage (inventory.warehouse_repository)."""

    def next_id(self) -> int: ...
    def get(self, ident: int) -> Warehouse: ...
    def several(self, idents: list[int]) -> dict[int, Warehouse]: ...
    def page(self, after: int, limit: int) -> Page: ...
    def add(self, warehouse: Warehouse) -> None: ...
    def replace(self, warehouse: Warehouse) -> Warehouse: ...
    def close(self, ident: int, now: str) -> None: ...
    def reopen(self, ident: int, closed_at: str) -> None: ...
    def remove(self, ident: int, closed_at: str) -> None: ...


class Stock(Protocol):
    """What the stock moves need of storage (inventory.stock_repository)."""

    def reservation(self, pedido_id: int) -> Reservation | None: ...
    def holding(self, producto_id: int) -> list[Holding]: ...
    def holding_page(self, after: int, limit: int) -> Page: ...
    def reserve(
        self, request: ReserveRequest, force: bool = False, seen: str | None = None
    ) -> Moved: ...
    def give_back(self, pedido_id: int, now: str, seen: str | None = None) -> Moved: ...
    def take_out(self, pedido_id: int, now: str, seen: str | None = None) -> Moved: ...
    def put_back(self, pedido_id: int, now: str, seen: str | None = None) -> Moved: ...
    def take_part(
        self, pedido_id: int, envio_id: int, bodega_id: int, parts: dict[int, int], now: str
    ) -> tuple[bool, bool]: ...
    def set_count(self, producto_id: int, bodega_id: int, actual: int, now: str) -> Product: ...
    def transfer(
        self, producto_id: int, desde: int, hacia: int, cantidad: int, now: str
    ) -> Product: ...
    def products_in(self, bodega_id: int) -> list[Product]: ...
    def restock(self, devolucion_id: int, lines: tuple, now: str) -> bool: ...
    def forget(self, bodega_id: int, products: list[Product]) -> None: ...


class Balance(Protocol):
    def page(
        self, shard: int, after: int, limit: int, settled_before: str, now: str
    ) -> tuple[list[dict], int | None]: ...


# -- products ----------------------------------------------------------------------------


def create_product(
    products: Products, warehouses: Warehouses, checked: tuple[rules.ProductFields, int]
) -> Product:
    """A product of checked fields (rules.parse_new_product), under the next id, its units
    in the warehouse named (400 when there is none)."""
    fields, bodega = checked
    if bodega != rules.PRINCIPAL_ID:  # PRINCIPAL is every stack's
        _known_warehouse(warehouses, bodega)
    product = rules.product(products.next_id(), fields)
    try:
        products.add(product, bodega)
    except NotFound:  # deleted meanwhile
        raise _no_such_warehouse() from None
    return product


def _known_warehouse(warehouses: Warehouses, bodega: int) -> None:
    try:
        warehouses.get(bodega)
    except NotFound:
        raise _no_such_warehouse() from None


def _no_such_warehouse() -> Invalid:
    return invalid_field("bodegaId", "no warehouse has this id")


def get_product(products: Products, product_id: int) -> Product:
    return products.get(product_id)


def list_products(products: Products, after: int, limit: int) -> Page:
    """A page of the catalog: products after id `after`, ascending."""
    return products.page(after, limit)


def low_stock_alerts(products: Products, after: int, limit: int) -> Page:
    """A page of the products whose stock is below their threshold (rules.in_alert)."""
    return products.alerts_page(after, limit)


def replace_product(products: Products, product_id: int, body: dict) -> Product:
    fields = rules.parse_product(body)
    # NotFound when there is no product to replace; the units reserved are kept.
    return products.replace(rules.product(product_id, fields))


def delete_product(products: Products, product_id: int) -> None:
    products.remove(product_id)


def check_stock(products: Products, product_id: int, raw_cantidad: str | None) -> bool:
    cantidad = rules.parse_cantidad(raw_cantidad)
    return rules.has_stock(products.get(product_id), cantidad)


def check_lines(products: Products, warehouses: Warehouses, body: dict) -> dict:
    """The stock check of an order being placed, every line at once (the contract's rule,
    stockActual >= cantidad, of each line's product, or of its warehouse when it names
    one): what each line finds, and what its product is now."""
    request = rules.parse_reservation(0, body, "")
    found = products.several([line.producto_id for line in request.lineas])
    pinned = {line.bodega_id for line in request.lineas if line.bodega_id is not None}
    known = warehouses.several(sorted(pinned)) if pinned else {}
    return {"lineas": [rules.checked_line(line, found, known) for line in request.lineas]}


# -- stock per warehouse ------------------------------------------------------------------


def _shown_rows(warehouses: Warehouses, product: Product, only: tuple[int, ...] = ()) -> list:
    """The product's rows with each warehouse's code; a row of a warehouse deleted since
    is not one."""
    rows = [row for row in product.existencias if not only or row.bodega_id in only]
    codes = warehouses.several([row.bodega_id for row in rows])
    return [
        rules.shown_row(row, codes[row.bodega_id].codigo) for row in rows if row.bodega_id in codes
    ]


def stock_rows(products: Products, warehouses: Warehouses, product_id: int) -> list[dict]:
    return _shown_rows(warehouses, products.get(product_id))


def set_stock_row(
    products: Products,
    warehouses: Warehouses,
    stock: Stock,
    product_id: int,
    bodega_id: int,
    body: dict,
    now: str,
) -> dict:
    """A warehouse's count of the product set; 404 for an unknown product or warehouse."""
    actual = rules.parse_count(body)
    products.get(product_id)
    warehouses.get(bodega_id)
    product = stock.set_count(product_id, bodega_id, actual, now)
    return _shown_rows(warehouses, product, (bodega_id,))[0]


def transfer_stock(
    products: Products, warehouses: Warehouses, stock: Stock, product_id: int, body: dict, now: str
) -> list[dict]:
    """Available units moved between two warehouses in one step: both rows after it."""
    desde, hacia, cantidad = rules.parse_transfer(body)
    products.get(product_id)
    for bodega in (desde, hacia):
        warehouses.get(bodega)
    product = stock.transfer(product_id, desde, hacia, cantidad, now)
    rows = {row["bodegaId"]: row for row in _shown_rows(warehouses, product, (desde, hacia))}
    return [rows[desde], rows[hacia]]


# -- warehouses ----------------------------------------------------------------------------


def create_warehouse(warehouses: Warehouses, fields: rules.WarehouseFields, now: str) -> Warehouse:
    warehouse = Warehouse(id=warehouses.next_id(), creado_en=now, **vars(fields))
    warehouses.add(warehouse)
    return warehouse


def replace_warehouse(warehouses: Warehouses, bodega_id: int, body: dict) -> Warehouse:
    current = warehouses.get(bodega_id)
    return warehouses.replace(rules.parse_warehouse_changes(current, body))


def delete_warehouse(warehouses: Warehouses, stock: Stock, bodega_id: int, now: str) -> None:
    """Gone, unless it is PRINCIPAL or holds units or reservations of any product
    (WAREHOUSE_IN_USE). It is closed first, so that no unit is put there while its
    products are looked at, and opened again if it is in use."""
    if bodega_id == rules.PRINCIPAL_ID:
        warehouses.get(bodega_id)
        raise rules.warehouse_in_use(bodega_id)
    warehouses.close(bodega_id, now)
    held = stock.products_in(bodega_id)
    busy = rules.in_use(bodega_id, held)
    if busy:
        warehouses.reopen(bodega_id, now)
        raise rules.warehouse_in_use(bodega_id, busy)
    warehouses.remove(bodega_id, now)
    stock.forget(bodega_id, held)


# -- the stock moves of an order's units ------------------------------------------------------


def product_reservations(products: Products, stock: Stock, product_id: int) -> list[Holding]:
    """The units of the product that orders hold, by line and warehouse (404 for a
    product that is not)."""
    products.get(product_id)
    return stock.holding(product_id)


def move_stock(stock: Stock, pedido_id: int, raw_move: str, body: dict, now: str) -> dict:
    """One stock move of an order (common.stock.moves.MOVES): whether this request made it
    (False: it was made before, a retry), and where each line's units are held. A
    repair's move names the reservation's `cambio` it read: made only on the
    reservation as read (409 RESERVATION_CHANGED otherwise)."""
    move = rules.parse_move(raw_move)
    seen = rules.parse_seen(body)
    if move in (moves.RESERVE, moves.FORCE):
        request = rules.parse_reservation(pedido_id, body, now)
        moved = stock.reserve(request, move == moves.FORCE, seen)
    else:
        moved = {
            moves.TAKE_OUT: stock.take_out,
            moves.GIVE_BACK: stock.give_back,
            moves.PUT_BACK: stock.put_back,
        }[move](pedido_id, now, seen)
    return {
        "aplicada": moved.applied,
        "lineas": [
            {"linea": line.linea, "asignaciones": rules.shown_units(line.asignaciones)}
            for line in moved.reservation.lineas
        ],
    }


def take_part(stock: Stock, pedido_id: int, envio_id: int, body: dict, now: str) -> dict:
    """A shipment of part of the order leaving with its units (docs/api.md#shipments-of-parts),
    once per shipment: whether this request took them (False: taken before, or `conPedido`:
    the order's own take-out had taken them all)."""
    bodega_id, parts = rules.parse_part(body)
    applied, whole = stock.take_part(pedido_id, envio_id, bodega_id, parts, now)
    return {"aplicada": applied, "conPedido": whole}


# Reservations per page of the repair's reading (the services' own route: no body limit).
HOLDING_PAGE = 500


def holding_reservations(stock: Stock, raw_after: str | None) -> dict:
    """A page of the reservations holding units, for the repair: after the pedidoId
    `raw_after` (0 or absent: from the first), and where the next page starts."""
    after = rules.parse_after(raw_after)
    page = stock.holding_page(after, HOLDING_PAGE)
    return {
        "reservas": [reservation.to_service() for reservation in page.items],
        "siguiente": page.resume_after,
    }


def reservation_of(stock: Stock, pedido_id: int) -> Reservation:
    found = stock.reservation(pedido_id)
    if found is None:
        raise rules.unknown_reservation(pedido_id)
    return found


# Products per page of the invariant check.
BALANCE_PAGE = 100


def balance(balance: Balance, body: dict, now: str) -> dict:
    """The invariant check of one page of one slice of the catalog, what differs put
    right (the repair asks it each run): what it found, and where the slice goes on."""
    shard, after, settled_before = rules.parse_balance(body)
    found, resume = balance.page(shard, after, BALANCE_PAGE, settled_before, now)
    return {"hallazgos": found, "siguiente": resume}


def restock(stock: Stock, devolucion_id: int, body: dict, now: str) -> dict:
    """A return's units back into stock, once (docs/api.md#returns): whether this
    request made it (False: made before, a retry)."""
    lines = rules.parse_restock(body)
    return {"aplicada": stock.restock(devolucion_id, lines, now)}
