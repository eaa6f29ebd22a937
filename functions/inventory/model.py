"""The tables behind products and their stock: the products themselves (the layer's model,
common.stock.product_model: the dashboard's figures and the webhooks' events read them
too), the sku claims, the warehouses (the layer's too: common.stock.warehouse_model), and
the stock ledger: every unit orders hold, keyed by what holds it.

DynamoDB has no unique constraint on a non-key attribute, so each product's sku is also
the key of an item in ProductSkusTable; both are written in one transaction with
conditions, which makes a duplicate sku fail on the server even under concurrency.
"""

from pynamodb.attributes import Attribute, NumberAttribute, NumberSetAttribute, UnicodeAttribute
from pynamodb.constants import MAP
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from common.stock.product_model import (
    ALERT_SHARDS,
    IN_ALERT,
    AlertIndex,
    ProductModel,
    product_of,
)
from common.stock.warehouse_model import WarehouseCodeModel, WarehouseModel, warehouse_of
from common.storage.tables import model_meta


class SkuClaimModel(Model):
    Meta = model_meta("ProductSkusTable")

    sku = UnicodeAttribute(hash_key=True)
    product_id = NumberAttribute(attr_name="productId")


# A reservation holding units carries `retiene` (its product) and `retieneShard`: the
# sparse indexes list the reservations holding a product's units, and all of them
# (common.storage.shards, for the repair that compares them with the orders). One taken out or
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
    """An order's reservation as stored before warehouses and lines (StockReservationsTable,
    one item per order): read only to carry it into the ledger (inventory.stock_repository
    and `make migrate-stock`)."""

    Meta = model_meta("StockReservationsTable")

    pedido_id = NumberAttribute(hash_key=True, attr_name="pedidoId")
    producto_id = NumberAttribute(attr_name="productoId")
    cantidad = NumberAttribute()
    status = UnicodeAttribute(attr_name="estado")
    desde = UnicodeAttribute()
    cambio = UnicodeAttribute()
    retiene = NumberAttribute(null=True)
    retiene_shard = UnicodeAttribute(attr_name="retieneShard", null=True)
    expira = NumberAttribute(null=True)

    by_product = ProductHoldingIndex()
    holding = HoldingIndex()


class UnitsAttribute(Attribute[dict[int, int]]):
    """Units by warehouse id, as a map keyed by the id's digits (none zero)."""

    attr_type = MAP

    def serialize(self, value: dict[int, int]) -> dict:
        return {str(bodega): {"N": str(units)} for bodega, units in value.items() if units}

    def deserialize(self, value: dict) -> dict[int, int]:
        return {int(bodega): int(entry["N"]) for bodega, entry in value.items()}


# The ledger's items, by what they are about (its hash key, `causa`):
# - `PEDIDO#<pedidoId>`, one per order line (`linea`): the units the line holds, where
#   they were reserved, and where taken out; each stock move of the order is one
#   transaction of its lines and their products, conditioned on each line's state;
# - `BODEGA#<bodegaId>`, one per product (`linea` its id) that ever had a row there:
#   what a DELETE of the warehouse reads to know whether it is in use;
# - `DEVOLUCION#<devolucionId>`, one (`linea` 0) per return whose units came back into
#   stock (docs/api.md#returns): written in the transaction that restocks them, on the
#   condition that it is not there, so a reception's restock is made once whatever the
#   retries; `cambio` holds what it restocked (a retry must ask the same).
ORDER_CAUSE, WAREHOUSE_CAUSE, RETURN_CAUSE = "PEDIDO", "BODEGA", "DEVOLUCION"


def cause(kind: str, ident: int) -> str:
    return f"{kind}#{ident}"


class LedgerProductIndex(GlobalSecondaryIndex):
    """The order lines holding a product's units (the ledger's own: PynamoDB binds an
    index class to one model)."""

    class Meta:
        index_name = "byProductHolding"
        projection = AllProjection()

    retiene = NumberAttribute(hash_key=True)
    pedido_id = NumberAttribute(range_key=True, attr_name="pedidoId")


class LedgerHoldingIndex(GlobalSecondaryIndex):
    """Every order line holding units, by its order's shard."""

    class Meta:
        index_name = "holding"
        projection = AllProjection()

    retiene_shard = UnicodeAttribute(hash_key=True, attr_name="retieneShard")
    pedido_id = NumberAttribute(range_key=True, attr_name="pedidoId")


class LedgerModel(Model):
    Meta = model_meta("StockLedgerTable")

    causa = UnicodeAttribute(hash_key=True)
    linea = NumberAttribute(range_key=True)
    pedido_id = NumberAttribute(attr_name="pedidoId", null=True)
    producto_id = NumberAttribute(attr_name="productoId", null=True)
    bodega_id = NumberAttribute(attr_name="bodegaId", null=True)
    cantidad = NumberAttribute(null=True)
    status = UnicodeAttribute(attr_name="estado", null=True)
    desde = UnicodeAttribute(null=True)
    cambio = UnicodeAttribute(null=True)
    asignaciones = UnitsAttribute(null=True)  # where its units were reserved
    retenidas = UnitsAttribute(null=True)  # where it holds units now
    retiradas = UnitsAttribute(null=True)  # where its order's own take-out took them from
    # The shipments whose units left with this line as the first they carry (the part
    # take-out's key: docs/api.md#shipments-of-parts); a retry finds its id here.
    envios = NumberSetAttribute(null=True)
    retiene = NumberAttribute(null=True)
    retiene_shard = UnicodeAttribute(attr_name="retieneShard", null=True)
    expira = NumberAttribute(null=True)

    by_product = LedgerProductIndex()
    holding = LedgerHoldingIndex()


__all__ = [
    "ALERT_SHARDS",
    "HOLDING",
    "HOLDING_SHARDS",
    "IN_ALERT",
    "ORDER_CAUSE",
    "RETURN_CAUSE",
    "WAREHOUSE_CAUSE",
    "AlertIndex",
    "HoldingIndex",
    "LedgerModel",
    "ProductHoldingIndex",
    "ProductModel",
    "ReservationModel",
    "SkuClaimModel",
    "WarehouseCodeModel",
    "WarehouseModel",
    "cause",
    "product_of",
    "warehouse_of",
]
