"""Inventory rules as plain functions: what a valid product is, alerts, stock checks."""

import re
from dataclasses import asdict, dataclass
from decimal import Decimal

from common.errors import invalid_field
from common.validation import Checker

# A sku is a DynamoDB key (at most 2048 bytes); a code this long is a mistake anyway.
MAX_SKU = 100
MAX_DESCRIPTION = 4000
# As many digits as a stored quantity can have (DynamoDB: 38 significant digits).
_WHOLE_NUMBER = re.compile(r"[0-9]{1,40}")


@dataclass(frozen=True)
class ProductFields:
    """Everything a client sets on a product (POST and PUT take the same schema)."""

    sku: str
    nombre: str
    precio_unitario: Decimal | int
    stock_actual: int
    umbral_minimo: int
    bodega: str | None
    descripcion: str | None

    def as_attributes(self) -> dict:
        return asdict(self)


def parse_product(body: dict) -> ProductFields:
    check = Checker(body)
    fields = ProductFields(
        sku=check.text("sku", max_length=MAX_SKU),
        nombre=check.text("nombre"),
        precio_unitario=check.number("precioUnitario", minimum=0),
        stock_actual=check.integer("stockActual", minimum=0),
        umbral_minimo=check.integer("umbralMinimo", minimum=0),
        bodega=check.text("bodega", required=False),
        descripcion=check.text("descripcion", required=False, max_length=MAX_DESCRIPTION),
    )
    check.done()
    return fields


def in_alert(stock_actual: int, umbral_minimo: int) -> bool:
    """Strictly below the threshold; a threshold of 0 therefore never alerts."""
    return stock_actual < umbral_minimo


def has_stock(stock_actual: int, cantidad: int) -> bool:
    return stock_actual >= cantidad


def parse_cantidad(raw: str | None) -> int:
    """The stock check's `cantidad` query parameter: a whole number >= 0."""
    if raw is None:
        raise invalid_field("cantidad", "is required")
    if not _WHOLE_NUMBER.fullmatch(raw):
        raise invalid_field("cantidad", "must be an integer >= 0")
    return int(raw)
