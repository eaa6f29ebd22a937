"""The product, its stock per warehouse, and the warehouse, as stored and shown
(docs/api.md#the-product, docs/api.md#warehouses).

The inventory function owns them; they are here, in the layer, because other functions
read them too without importing their owner: the dashboard's figures and the webhooks'
events (the tables' stream images), the dashboard (a warehouse's code).
"""

from dataclasses import dataclass, field
from decimal import Decimal

# The warehouse every stack has from its start (docs/api.md#warehouses): it holds what a
# product was given without one, and everything stored before warehouses existed.
PRINCIPAL_ID = 1
PRINCIPAL_CODE = "PRINCIPAL"
PRINCIPAL_NAME = "Principal"
DEFAULT_PRIORITY = 100


@dataclass(frozen=True, kw_only=True)
class StockRow:
    """One warehouse's units of one product: on hand, held by approved orders, and what is
    left of them to reserve (never set: derived)."""

    bodega_id: int
    stock_actual: int
    stock_reservado: int = 0
    stock_disponible: int = field(init=False)
    # What the item holds as available, which the invariant check compares with what it
    # should be (None: not read from an item).
    guardado: int | None = field(default=None, compare=False, metadata={"internal": True})

    def __post_init__(self) -> None:
        object.__setattr__(self, "stock_disponible", self.stock_actual - self.stock_reservado)

    @property
    def holds_units(self) -> bool:
        """Units on hand or held there: what keeps a warehouse in use."""
        return self.stock_actual > 0 or self.stock_reservado > 0


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
    """A product as stored and shown: what a client set, and the units orders hold
    (docs/api.md#the-product). stockDisponible is derived, never set. Its totals are the
    sums over its warehouses (`existencias`, not shown with the product: its own route
    shows them); a product stored before warehouses existed has every unit in
    PRINCIPAL."""

    id: int
    stock_reservado: int = 0
    stock_disponible: int = field(init=False)
    # Not compared: two products are equal by what they show.
    existencias: tuple[StockRow, ...] = field(
        default=(), compare=False, metadata={"internal": True}
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "stock_disponible", self.stock_actual - self.stock_reservado)
        if not self.existencias:
            principal = StockRow(
                bodega_id=PRINCIPAL_ID,
                stock_actual=self.stock_actual,
                stock_reservado=self.stock_reservado,
            )
            object.__setattr__(self, "existencias", (principal,))

    def row(self, bodega_id: int) -> StockRow | None:
        return next((row for row in self.existencias if row.bodega_id == bodega_id), None)


def in_alert(product: ProductFields) -> bool:
    """Strictly below the threshold; a threshold of 0 therefore never alerts."""
    return product.stock_actual < product.umbral_minimo


@dataclass(frozen=True, kw_only=True)
class WarehouseFields:
    """What a client sets on a warehouse; `codigo` only when it is made."""

    codigo: str
    nombre: str
    region: str | None
    prioridad: int


@dataclass(frozen=True, kw_only=True)
class Warehouse(WarehouseFields):
    id: int
    creado_en: str


def principal(creado_en: str) -> Warehouse:
    """PRINCIPAL as a stack starts with it."""
    return Warehouse(
        id=PRINCIPAL_ID,
        codigo=PRINCIPAL_CODE,
        nombre=PRINCIPAL_NAME,
        region=None,
        prioridad=DEFAULT_PRIORITY,
        creado_en=creado_en,
    )
