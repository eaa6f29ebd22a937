"""The order, the shipment and the product as stored and shown (docs/api.md#the-order,
docs/api.md#the-shipment, docs/api.md#the-product).

The orders, shipping and inventory functions own them; they are here, in the layer,
because other functions read them too without importing their owner: the users function
(a person's data, docs/personal-data.md), the dashboard's figures and the webhooks'
events (the tables' stream images). Their personal fields (common.personal) may be None:
an order or a shipment of a person whose data was erased keeps its facts and loses
those.
"""

from dataclasses import dataclass, field
from decimal import Decimal

from common import history
from common.callers import OPERATOR
from common.errors import NotFound, not_found
from common.history import Entry

# The status each is created in: its history's first entry.
ORDER_CREATED, SHIPMENT_CREATED = "PENDIENTE", "CREADO"
# A cancelled order's status: final, its total no longer counts (the dashboard's day).
ORDER_CANCELLED = "CANCELADO"


@dataclass(frozen=True, kw_only=True)
class NewOrder:
    """What a client may set on a new order; id, status, creadoEn and observaciones are
    the service's own and ignored when sent. (A new order's text fields are never None:
    None is what erasing leaves on a stored one.)"""

    user_id: int
    user_email: str | None
    cliente_nombre: str | None
    total: Decimal | int
    tipo_pedido: str
    destino: str | None
    producto_id: int
    cantidad: int


@dataclass(frozen=True, kw_only=True)
class Order(NewOrder):
    """An order as stored and shown."""

    id: int
    status: str
    observaciones: str | None
    creado_en: str
    # The role of the caller who placed it (its history's first entry); None for an
    # order placed before it was kept.
    creado_por: str | None = field(default=None, metadata={"internal": True})


@dataclass(frozen=True, kw_only=True)
class NewShipment:
    """Everything a client sets on a shipment; the rest is generated."""

    pedido_id: int
    tipo_envio: str
    transportista: str
    destino: str | None


@dataclass(frozen=True, kw_only=True)
class Shipment(NewShipment):
    """A shipment; its dates already in the platform's time format."""

    id: int
    status: str
    guia_despecho: str
    ruta_descripcion: str | None
    fecha_estimada_entrega: str
    creado_en: str
    # Whose order it fulfils (the order's userId; None for an order unknown when it was
    # created): its customer may follow it. Not shown in the API.
    owner_id: int | None = field(default=None, metadata={"internal": True})


def unknown_order(order_id: int) -> NotFound:
    return not_found("ORDER_NOT_FOUND", "Order", order_id)


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
    (docs/api.md#the-product). stockDisponible is derived, never set."""

    id: int
    stock_reservado: int = 0
    stock_disponible: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stock_disponible", self.stock_actual - self.stock_reservado)


def in_alert(product: ProductFields) -> bool:
    """Strictly below the threshold; a threshold of 0 therefore never alerts."""
    return product.stock_actual < product.umbral_minimo


def order_history(order: Order, changes: list[Entry]) -> list[Entry]:
    """An order's history as the API shows it (docs/api.md#history): its creation, by
    whoever placed it, then its kept changes."""
    return history.shown(Entry(ORDER_CREATED, order.creado_en, order.creado_por), changes)


def shipment_history(shipment: Shipment, changes: list[Entry]) -> list[Entry]:
    """A shipment's history as the API shows it: its creation (only operators create
    shipments), then its kept changes."""
    return history.shown(Entry(SHIPMENT_CREATED, shipment.creado_en, OPERATOR), changes)
