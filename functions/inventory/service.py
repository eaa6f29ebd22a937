"""Inventory use cases, one function each; the repository is passed in."""

from typing import Protocol

from common import stock as moves
from common.paging import Page
from inventory import rules
from inventory.rules import Product, Reservation


class Products(Protocol):
    """What the use cases need of product storage (DynamoDB, or a fake in tests)."""

    def next_id(self) -> int: ...
    def get(self, product_id: int) -> Product: ...
    def page(self, after: int, limit: int) -> Page: ...
    def alerts_page(self, after: int, limit: int) -> Page: ...
    def add(self, product: Product) -> None: ...
    def replace(self, product: Product) -> Product: ...
    def remove(self, product_id: int) -> None: ...


def create_product(products: Products, fields: rules.ProductFields) -> Product:
    """A product of checked fields (rules.parse_product), under the next id."""
    product = rules.product(products.next_id(), fields)
    products.add(product)
    return product


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


class Stock(Protocol):
    """What the stock moves need of storage (inventory.stock_repository)."""

    def reservation(self, pedido_id: int) -> Reservation | None: ...
    def holding(self, producto_id: int) -> list[Reservation]: ...
    def holding_page(self, after: int, limit: int) -> Page: ...
    def reserve(
        self, reservation: Reservation, force: bool = False, seen: str | None = None
    ) -> bool: ...
    def give_back(self, pedido_id: int, now: str, seen: str | None = None) -> bool: ...
    def take_out(self, pedido_id: int, now: str, seen: str | None = None) -> bool: ...
    def put_back(self, pedido_id: int, now: str, seen: str | None = None) -> bool: ...


def product_reservations(products: Products, stock: Stock, product_id: int) -> list[Reservation]:
    """The reservations holding the product's units (404 for a product that is not)."""
    products.get(product_id)
    return stock.holding(product_id)


def move_stock(stock: Stock, pedido_id: int, raw_move: str, body: dict, now: str) -> dict:
    """One stock move of an order (common.stock.MOVES): whether this request made it
    (False: it was made before, a retry). Nothing more is read to answer it. A repair's
    move names the reservation's `cambio` it read: made only on the reservation as read
    (409 RESERVATION_CHANGED otherwise)."""
    move = rules.parse_move(raw_move)
    seen = rules.parse_seen(body)
    if move in (moves.RESERVE, moves.FORCE):
        reservation = rules.parse_reservation(pedido_id, body, now)
        applied = stock.reserve(reservation, move == moves.FORCE, seen)
    else:
        applied = {
            moves.TAKE_OUT: stock.take_out,
            moves.GIVE_BACK: stock.give_back,
            moves.PUT_BACK: stock.put_back,
        }[move](pedido_id, now, seen)
    return {"aplicada": applied}


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
