"""The tables behind warehouses (docs/api.md#warehouses): the warehouses themselves, in id
order by the byShard index, and their code claims. The inventory function owns them; the
model is the layer's because the dashboard shows each warehouse's code beside its units.

DynamoDB has no unique constraint on a non-key attribute, so each warehouse's code is
also the key of an item in WarehouseCodesTable, written in one transaction with the
warehouse (as a product's sku is).
"""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from common.stock.records import Warehouse
from common.storage.tables import ListIndex, model_meta


class WarehouseModel(Model):
    Meta = model_meta("WarehousesTable")

    id = NumberAttribute(hash_key=True)
    codigo = UnicodeAttribute()
    nombre = UnicodeAttribute()
    region = UnicodeAttribute(null=True)
    prioridad = NumberAttribute()
    creado_en = UnicodeAttribute(attr_name="creadoEn")
    # Set while a DELETE looks for units held there (inventory.warehouse_repository): no
    # unit may be put there meanwhile.
    cerrando = UnicodeAttribute(null=True)
    shard = NumberAttribute()

    by_shard = ListIndex()


class WarehouseCodeModel(Model):
    Meta = model_meta("WarehouseCodesTable")

    codigo = UnicodeAttribute(hash_key=True)
    bodega_id = NumberAttribute(attr_name="bodegaId")


def warehouse_of(item: WarehouseModel) -> Warehouse:
    return Warehouse(
        id=int(item.id),
        codigo=item.codigo,
        nombre=item.nombre,
        region=item.region,
        prioridad=int(item.prioridad),
        creado_en=item.creado_en,
    )
