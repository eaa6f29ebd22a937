"""Inventory rules as plain functions: what a valid product is, alerts, stock checks."""

import re
from dataclasses import dataclass
from decimal import Decimal

from common.errors import Invalid, NotFound, invalid_field, not_found
from common.validation import Checker

# A sku is a DynamoDB key (at most 2048 bytes); a code this long is a mistake anyway.
MAX_SKU = 100
MAX_DESCRIPTION = 4000
# As many digits as a stored quantity can have (DynamoDB: 38 significant digits).
_WHOLE_NUMBER = re.compile(r"[0-9]{1,40}")


@dataclass(frozen=True, kw_only=True)
class ProductFields:
    """Everything a client sets on a product (POST and PUT take the same schema)."""

    sku: str
    nombre: str
    precio_unitario: Decimal | int
    stock_actual: int
    umbral_minimo: int
    bodega: str | None
    descripcion: str | None


@dataclass(frozen=True, kw_only=True)
class Product(ProductFields):
    id: int


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


def product(product_id: int, fields: ProductFields) -> Product:
    return Product(id=product_id, **vars(fields))


def in_alert(product: ProductFields) -> bool:
    """Strictly below the threshold; a threshold of 0 therefore never alerts."""
    return product.stock_actual < product.umbral_minimo


def has_stock(product: ProductFields, cantidad: int) -> bool:
    return product.stock_actual >= cantidad


def parse_cantidad(raw: str | None) -> int:
    """The stock check's `cantidad` query parameter: a whole number >= 0."""
    if raw is None:
        raise invalid_field("cantidad", "is required")
    if not _WHOLE_NUMBER.fullmatch(raw):
        raise invalid_field("cantidad", "must be an integer >= 0")
    return int(raw)
