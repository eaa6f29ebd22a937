"""The table behind products, and its sparse index of the products in alert. The
inventory function owns it; the model is the layer's because the dashboard's figures and
the webhooks' events read products too (their stream images), without importing it.

Alerts come from a sparse index: `enAlerta` is on a product only while its stock is
below its threshold, written in the same put that sets the stock and threshold, so
the index holds exactly the products in alert, by id. Its value is `ALERTA#<shard>`,
over 16 shards, so that products in alert are not all written to one partition
(docs/capacity.md).
"""

from typing import Any

from pynamodb.attributes import Attribute, NumberAttribute, UnicodeAttribute
from pynamodb.constants import MAP
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from common.stock.records import Product, StockRow
from common.storage.tables import DecimalAttribute, ListIndex, model_meta

IN_ALERT = "ALERTA"
ALERT_SHARDS = 16
# A warehouse's row in a product's `existencias`, under the warehouse's id: its counters,
# each a path a condition and an update name (`existencias.3.disponible >= 2`).
ACTUAL, RESERVED, AVAILABLE = "actual", "reservado", "disponible"


def row_map(row: StockRow) -> dict:
    """A row as DynamoDB holds it (the inner map of its warehouse's entry)."""
    counts = {
        ACTUAL: row.stock_actual,
        RESERVED: row.stock_reservado,
        AVAILABLE: row.stock_disponible,
    }
    return {name: {"N": str(value)} for name, value in counts.items()}


class StockRowsAttribute(Attribute[tuple[StockRow, ...]]):
    """A product's stock per warehouse: a map of warehouse id to its row, read back as
    rows in ascending warehouse id. `disponible` is kept beside `reservado` (never derived
    on read) because a condition cannot subtract: `disponible >= n` is what decides an
    approval."""

    attr_type = MAP

    def serialize(self, value: tuple[StockRow, ...]) -> dict:
        return {str(row.bodega_id): {"M": row_map(row)} for row in value}

    def deserialize(self, value: dict) -> tuple[StockRow, ...]:
        rows = []
        for key, entry in value.items():
            counts: dict[str, Any] = entry.get("M", {})
            rows.append(
                StockRow(
                    bodega_id=int(key),
                    stock_actual=int(counts.get(ACTUAL, {}).get("N", "0")),
                    stock_reservado=int(counts.get(RESERVED, {}).get("N", "0")),
                    guardado=int(counts[AVAILABLE]["N"]) if AVAILABLE in counts else None,
                )
            )
        return tuple(sorted(rows, key=lambda row: row.bodega_id))


class AlertIndex(GlobalSecondaryIndex):
    class Meta:
        index_name = "alerts"
        projection = AllProjection()

    en_alerta = UnicodeAttribute(hash_key=True, attr_name="enAlerta")
    id = NumberAttribute(range_key=True)


class ProductModel(Model):
    Meta = model_meta("ProductsTable")

    id = NumberAttribute(hash_key=True)
    sku = UnicodeAttribute()
    nombre = UnicodeAttribute()
    precio_unitario = DecimalAttribute(attr_name="precioUnitario")
    stock_actual = NumberAttribute(attr_name="stockActual")
    umbral_minimo = NumberAttribute(attr_name="umbralMinimo")
    bodega = UnicodeAttribute(null=True)
    descripcion = UnicodeAttribute(null=True)
    en_alerta = UnicodeAttribute(attr_name="enAlerta", null=True)
    # The units approved orders hold, and what is left: kept in the item (never set by a
    # client) so that a reservation is one conditional write, `stockDisponible >= n`. An
    # item written before reservations has neither: none reserved, all available.
    stock_reservado = NumberAttribute(attr_name="stockReservado", null=True)
    stock_disponible = NumberAttribute(attr_name="stockDisponible", null=True)
    # Its stock per warehouse (StockRowsAttribute); the three counts above are their sums,
    # written in the same write. An item written before warehouses has none: every unit
    # is in PRINCIPAL (the migration writes that row).
    existencias = StockRowsAttribute(null=True)
    # When its units last moved (common.platform.clock), written with them: the invariant
    # check leaves a product that just moved to its next round.
    movido = UnicodeAttribute(null=True)
    shard = NumberAttribute()

    by_shard = ListIndex()
    alerts = AlertIndex()


def product_of(item: ProductModel) -> Product:
    """The product of a stored item; one written before reservations holds none, one
    written before warehouses holds every unit in PRINCIPAL. Every reader of a product
    item reads it so: the inventory's repositories and the webhook events' stream
    images."""
    return Product(
        id=int(item.id),
        sku=item.sku,
        nombre=item.nombre,
        precio_unitario=item.precio_unitario,
        stock_actual=int(item.stock_actual),
        umbral_minimo=int(item.umbral_minimo),
        bodega=item.bodega,
        descripcion=item.descripcion,
        stock_reservado=int(item.stock_reservado or 0),
        existencias=item.existencias or (),
    )
