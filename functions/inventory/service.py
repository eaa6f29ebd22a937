"""Inventory use cases, one function each; the repository is passed in."""

from typing import Protocol

from common.paging import Page
from inventory import rules
from inventory.rules import Product


class Products(Protocol):
    """What the use cases need of product storage (DynamoDB, or a fake in tests)."""

    def next_id(self) -> int: ...
    def get(self, product_id: int) -> Product: ...
    def page(self, after: int, limit: int) -> Page: ...
    def alerts_page(self, after: int, limit: int) -> Page: ...
    def add(self, product: Product) -> None: ...
    def replace(self, product: Product) -> None: ...
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
    product = rules.product(product_id, fields)
    products.replace(product)  # NotFound when there is no product to replace
    return product


def delete_product(products: Products, product_id: int) -> None:
    products.remove(product_id)


def check_stock(products: Products, product_id: int, raw_cantidad: str | None) -> bool:
    cantidad = rules.parse_cantidad(raw_cantidad)
    return rules.has_stock(products.get(product_id), cantidad)
