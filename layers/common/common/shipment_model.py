"""The table behind shipments, and its indexes: of every shipment, by status (over 16
shards: docs/capacity.md), by order and by the order's customer, in id order.

The shipping function owns the table; the model is the layer's because the users
function reads a person's shipments by the customer index, and erases their personal
fields (common.personal.SHIPMENT: nullable here, absent once erased)."""

from pynamodb.attributes import ListAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from common.storage import HistoryEntryAttribute, ListIndex, model_meta

STATUS_SHARDS = 16


class ShipmentStatusIndex(GlobalSecondaryIndex):
    """Shipments by `statusShard`, `<status>#<shard>` (common.shards), in id order: a
    status's shipments spread over its shards, so that its writes are not capped at one
    partition's 1,000 a second (docs/capacity.md)."""

    class Meta:
        index_name = "byStatusShard"
        projection = AllProjection()

    status_shard = UnicodeAttribute(hash_key=True, attr_name="statusShard")
    id = NumberAttribute(range_key=True)


class OrderIndex(GlobalSecondaryIndex):
    class Meta:
        index_name = "byOrder"
        projection = AllProjection()

    pedido_id = NumberAttribute(hash_key=True, attr_name="pedidoId")
    id = NumberAttribute(range_key=True)


class OwnerIndex(GlobalSecondaryIndex):
    """The shipments of one customer's orders, in id order; sparse: a shipment of an order
    unknown when it was created has no owner."""

    class Meta:
        index_name = "byUser"
        projection = AllProjection()

    owner_id = NumberAttribute(hash_key=True, attr_name="userId")
    id = NumberAttribute(range_key=True)


class ShipmentModel(Model):
    Meta = model_meta("ShipmentsTable")

    id = NumberAttribute(hash_key=True)
    pedido_id = NumberAttribute(attr_name="pedidoId")
    status = UnicodeAttribute()
    tipo_envio = UnicodeAttribute(attr_name="tipoEnvio")
    transportista = UnicodeAttribute()
    guia_despecho = UnicodeAttribute(attr_name="guiaDespecho")
    # Personal (common.personal.SHIPMENT): null once the person's data is erased.
    ruta_descripcion = UnicodeAttribute(attr_name="rutaDescripcion", null=True)
    destino = UnicodeAttribute(null=True)
    # Stored as the API's ISO strings (common.clock.to_iso), returned unchanged.
    fecha_estimada_entrega = UnicodeAttribute(attr_name="fechaEstimadaEntrega")
    creado_en = UnicodeAttribute(attr_name="creadoEn")
    owner_id = NumberAttribute(attr_name="userId", null=True)
    # Its status changes (common.history), each appended by the write that makes it.
    historial = ListAttribute(of=HistoryEntryAttribute, null=True)
    status_shard = UnicodeAttribute(attr_name="statusShard")
    shard = NumberAttribute()

    by_shard = ListIndex()
    by_status = ShipmentStatusIndex()
    by_order = OrderIndex()
    by_user = OwnerIndex()
