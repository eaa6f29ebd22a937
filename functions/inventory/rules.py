"""Inventory rules as plain functions: what a valid product is, alerts, stock checks. The
product's shape (ProductFields, Product) and its alert (in_alert) are the layer's
(common.records): the dashboard's figures and the webhooks' events read products too."""

import re
from dataclasses import dataclass, field

from common import stock
from common.errors import Conflict, Invalid, NotFound, invalid_field, not_found
from common.ids import MAX_ID
from common.records import Product, ProductFields
from common.records import in_alert as in_alert
from common.validation import Checker

# A sku is a DynamoDB key (at most 2048 bytes); a code this long is a mistake anyway.
MAX_SKU = 100
MAX_DESCRIPTION = 4000
# As many digits as a stored quantity can have (DynamoDB: 38 significant digits).
_WHOLE_NUMBER = re.compile(r"[0-9]{1,40}")


@dataclass(frozen=True, kw_only=True)
class Reservation:
    """An order's units of one product, keyed by the order: every stock move of the order
    is one conditional write on it, so none happens twice."""

    pedido_id: int
    cantidad: int
    desde: str  # when it was taken (common.clock)
    producto_id: int = field(metadata={"internal": True})
    estado: str = field(default=stock.HELD, metadata={"internal": True})  # common.stock
    cambio: str = field(default="", metadata={"internal": True})  # its last change

    @property
    def id(self) -> int:
        """Identified by its order, as lists of reservations are ordered (common.lists)."""
        return self.pedido_id

    def to_service(self) -> dict:
        """Everything of it, for the service that moves it (the API shows less)."""
        return {
            "pedidoId": self.pedido_id,
            "productoId": self.producto_id,
            "cantidad": self.cantidad,
            "estado": self.estado,
            "desde": self.desde,
            "cambio": self.cambio,
        }


def insufficient_stock(product: Product, cantidad: int) -> Conflict:
    message = f"only {product.stock_disponible} of product {product.id} available"
    return Conflict(
        "INSUFFICIENT_STOCK",
        f"Cannot reserve {cantidad} units: {message}",
        details=[{"field": "cantidad", "message": message}],
    )


def not_on_hand(product: Product, cantidad: int) -> Conflict:
    """A take-out of more units than are on hand (a recount found fewer than the order
    holds): stockActual never goes negative."""
    message = f"only {product.stock_actual} of product {product.id} on hand"
    return Conflict(
        "INSUFFICIENT_STOCK",
        f"Cannot take out {cantidad} units: {message}",
        details=[{"field": "cantidad", "message": message}],
    )


def product_gone(product_id: int) -> Conflict:
    """A move on a product deleted meanwhile: the order's, not the request's, problem."""
    return Conflict("PRODUCT_NOT_FOUND", f"Product {product_id} no longer exists")


def changed_since(pedido_id: int) -> Conflict:
    """A repair's move of units that moved since the repair read them: whoever moved them
    (an order's own request) decides, and the repair leaves them alone."""
    return Conflict(stock.CHANGED, f"Order {pedido_id}'s units moved since they were read")


def not_held(pedido_id: int, estado: str | None) -> Conflict:
    """A take-out or give-back of units the order does not hold (another move won)."""
    now = f"its units are {estado.lower()}" if estado else "it holds no units"
    return Conflict(stock.NOT_HELD, f"Order {pedido_id}: {now}")


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
    check = Checker(body)
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
    return fields


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
    """One of the moves another service may ask of an order's units (common.stock: the
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


def parse_reservation(pedido_id: int, body: dict, now: str) -> Reservation:
    """What a reservation holds: the order's product and units, from the asking service."""
    check = Checker(body)
    producto_id, cantidad = check.identifier("productoId"), check.count("cantidad", minimum=1)
    check.done()
    return Reservation(pedido_id=pedido_id, producto_id=producto_id, cantidad=cantidad, desde=now)


def unknown_reservation(pedido_id: int) -> NotFound:
    return not_found("RESERVATION_NOT_FOUND", "Reservation of order", pedido_id)
