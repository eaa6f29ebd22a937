"""The tables behind products: the products themselves (the layer's model,
common.product_model: the dashboard's figures and the webhooks' events read them too),
the sku claims, and the units orders hold (reservations).

DynamoDB has no unique constraint on a non-key attribute, so each product's sku is also
the key of an item in ProductSkusTable; both are written in one transaction with
conditions, which makes a duplicate sku fail on the server even under concurrency.
"""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from common.product_model import (
    ALERT_SHARDS,
    IN_ALERT,
    AlertIndex,
    ProductModel,
    product_of,
)
from common.storage import model_meta


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


__all__ = [
    "ALERT_SHARDS",
    "HOLDING",
    "HOLDING_SHARDS",
    "IN_ALERT",
    "AlertIndex",
    "HoldingIndex",
    "ProductHoldingIndex",
    "ProductModel",
    "ReservationModel",
    "SkuClaimModel",
    "product_of",
]
