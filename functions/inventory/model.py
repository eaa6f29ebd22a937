"""The tables behind products: the products themselves, and the sku claims.

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
    shard = NumberAttribute()

    by_shard = ListIndex()
    alerts = AlertIndex()


class SkuClaimModel(Model):
    Meta = model_meta("ProductSkusTable")

    sku = UnicodeAttribute(hash_key=True)
    product_id = NumberAttribute(attr_name="productId")
