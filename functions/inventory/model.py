"""The tables behind products: the products themselves, and the sku claims.

DynamoDB has no unique constraint on a non-key attribute, so each product's sku is also
the key of an item in ProductSkusTable; both are written in one transaction with
conditions, which makes a duplicate sku fail on the server even under concurrency.
"""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from common.storage import DecimalAttribute, model_meta


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


class SkuClaimModel(Model):
    Meta = model_meta("ProductSkusTable")

    sku = UnicodeAttribute(hash_key=True)
    product_id = NumberAttribute(attr_name="productId")
