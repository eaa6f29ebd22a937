"""The tables behind products: the products themselves, the sku claims, and the units
orders hold (reservations).

DynamoDB has no unique constraint on a non-key attribute, so each product's sku is also
the key of an item in ProductSkusTable; both are written in one transaction with
conditions, which makes a duplicate sku fail on the server even under concurrency.

Alerts come from a sparse index: `enAlerta` is on a product only while its stock is
below its threshold, written in the same put that sets the stock and threshold, so
the index holds exactly the products in alert, by id. Its value is `ALERTA#<shard>`,
over 16 shards, so that products in alert are not all written to one partition
(docs/capacity.md).
"""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from common.storage import DecimalAttribute, ListIndex, model_meta
from inventory.rules import Product

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


class SkuClaimModel(Model):
    Meta = model_meta("ProductSkusTable")

    sku = UnicodeAttribute(hash_key=True)
    product_id = NumberAttribute(attr_name="productId")


# A reservation holding units carries `retiene` (its product) and `retieneShard`: the
# sparse indexes list the reservations holding a product's units, and all of them
# (common.shards, for the repair that compares them with the orders). One taken out or
# given back keeps its state a while (`expira`, the table's TTL), so that a retried move
# finds it done.
HOLDING = "RETIENE"
HOLDING_SHARDS = 16


class ProductHoldingIndex(GlobalSecondaryIndex):
    class Meta:
        index_name = "byProductHolding"
        projection = AllProjection()

    retiene = NumberAttribute(hash_key=True)
    pedido_id = NumberAttribute(range_key=True, attr_name="pedidoId")


class HoldingIndex(GlobalSecondaryIndex):
    class Meta:
        index_name = "holding"
        projection = AllProjection()

    retiene_shard = UnicodeAttribute(hash_key=True, attr_name="retieneShard")
    pedido_id = NumberAttribute(range_key=True, attr_name="pedidoId")


class ReservationModel(Model):
    Meta = model_meta("StockReservationsTable")

    pedido_id = NumberAttribute(hash_key=True, attr_name="pedidoId")
    producto_id = NumberAttribute(attr_name="productoId")
    cantidad = NumberAttribute()
    estado = UnicodeAttribute()
    desde = UnicodeAttribute()
    cambio = UnicodeAttribute()
    retiene = NumberAttribute(null=True)
    retiene_shard = UnicodeAttribute(attr_name="retieneShard", null=True)
    expira = NumberAttribute(null=True)

    by_product = ProductHoldingIndex()
    holding = HoldingIndex()


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
