"""The table behind products, and its sparse index of the products in alert. The
inventory function owns it; the model is the layer's because the dashboard's figures and
the webhooks' events read products too (their stream images), without importing it.

Alerts come from a sparse index: `enAlerta` is on a product only while its stock is
below its threshold, written in the same put that sets the stock and threshold, so
the index holds exactly the products in alert, by id. Its value is `ALERTA#<shard>`,
over 16 shards, so that products in alert are not all written to one partition
(docs/capacity.md).
"""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from common.records import Product
from common.storage import DecimalAttribute, ListIndex, model_meta

IN_ALERT = "ALERTA"
ALERT_SHARDS = 16


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
    shard = NumberAttribute()

    by_shard = ListIndex()
    alerts = AlertIndex()


def product_of(item: ProductModel) -> Product:
    """The product of a stored item; one written before reservations holds none. Every
    reader of a product item reads it so: the inventory's repositories and the webhook
    events' stream images."""
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
    )
