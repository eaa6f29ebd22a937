"""What one product, order or shipment adds to the dashboard's counters (its share), as
plain functions of the item as its service reads it (docs/api.md#dashboard).

A change moves an item's share: a figure is the sum of the shares, so it changes by the
new share less the old one. A status change moves one from a status to another; a
product's price or stock moves `valorStock` and perhaps `enAlerta`; a shipment may move
back out of ENTREGADO (the lifecycle of a shipment is not enforced); a cancelled order
leaves its day's `total` but stays in its `pedidos`.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from common.dashboard import layout
from common.orders.records import ORDER_CANCELLED, Order, Shipment
from common.orders.return_records import OPEN, Return
from common.stock.records import Product, in_alert

PRODUCT, ORDER, SHIPMENT, RETURN = "producto", "pedido", "envio", "devolucion"
DELIVERED = "ENTREGADO"


@dataclass(frozen=True)
class Share:
    """The counters an item adds to, and how much (none zero); and, for a shipment not
    delivered, its estimate (`due`): its hour's item lists it."""

    counts: Mapping[str, Decimal] = field(default_factory=dict)
    due: str | None = None


NOTHING = Share()


def _counted(counts: Mapping[str, Decimal | int]) -> dict[str, Decimal]:
    return {name: Decimal(value) for name, value in counts.items() if value}


def product_share(product: Product) -> Share:
    """Its count, its alert, the value of its stock over every warehouse, and its units
    and their value in each warehouse."""
    price = Decimal(product.precio_unitario)
    counts: dict[str, Decimal | int] = {
        layout.PRODUCTS: 1,
        layout.IN_ALERT: int(in_alert(product)),
        layout.STOCK_VALUE: price * product.stock_actual,
    }
    for row in product.existencias:
        counts[layout.warehouse(row.bodega_id, layout.UNITS)] = row.stock_actual
        counts[layout.warehouse(row.bodega_id, layout.VALUE)] = price * row.stock_actual
    return Share(_counted(counts))


def order_share(order: Order) -> Share:
    day = layout.day_of(order.creado_en)
    return Share(
        _counted(
            {
                layout.order_status(order.status): 1,
                layout.day_orders(day): 1,
                layout.day_total(day): Decimal(order.total)
                if order.status != ORDER_CANCELLED
                else 0,
            }
        )
    )


def shipment_share(shipment: Shipment, delivered_at: str | None) -> Share:
    """`delivered_at`: when it last became ENTREGADO (its history's last entry), if it is
    and that was recorded. One delivered before history was kept is taken as delivered
    on time."""
    counts: dict[str, Decimal | int] = {layout.shipment_status(shipment.status): 1}
    if shipment.status == DELIVERED:
        on_time = delivered_at is None or delivered_at <= shipment.fecha_estimada_entrega
        counts[layout.ON_TIME] = int(on_time)
        return Share(_counted(counts))
    counts[layout.due(layout.hour_of(shipment.fecha_estimada_entrega))] = 1
    return Share(_counted(counts), due=shipment.fecha_estimada_entrega)


def return_share(ret: Return) -> Share:
    """An open return (SOLICITADA or APROBADA) counts among the open ones."""
    return Share(_counted({layout.OPEN_RETURNS: int(ret.estado in OPEN)}))
