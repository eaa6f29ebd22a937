"""The table behind shipments, and its indexes: of every shipment, by status (over 16
shards: docs/capacity.md), by order and by the order's customer, in id order; and of the
shipments whose estimate has yet to be checked, by estimate (the late check).

The shipping function owns the table; the model is the layer's because the users
function reads a person's shipments by the customer index, and erases their personal
fields (common.platform.personal.SHIPMENT: nullable here, absent once erased)."""

from collections.abc import Sequence

from pynamodb.attributes import Attribute, ListAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.constants import LIST
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import Model

from common.orders.records import ShipmentLine
from common.storage.tables import HistoryEntryAttribute, ListIndex, model_meta

STATUS_SHARDS = 16
# `vence` is `DUE#<shard>` while a shipment's estimate has yet to be checked (the late
# check: docs/api.md#tracking); only those carry it, so the index holds exactly them.
DUE = "DUE"
DUE_SHARDS = 16


class ShipmentStatusIndex(GlobalSecondaryIndex):
    """Shipments by `statusShard`, `<status>#<shard>` (common.storage.shards), in id order: a
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


class DueIndex(GlobalSecondaryIndex):
    """The shipments whose estimate is still to be checked, by `vence` (DUE#<shard>), in
    the order of their estimate: a check reads those past it and nothing else. Keys only:
    the check reads each shipment by key, and the index is written only when a shipment
    enters it (created) and leaves it (checked), never by its status changes."""

    class Meta:
        index_name = "porVencer"
        projection = KeysOnlyProjection()

    vence = UnicodeAttribute(hash_key=True)
    fecha_estimada_entrega = UnicodeAttribute(range_key=True, attr_name="fechaEstimadaEntrega")


class ShipmentLinesAttribute(Attribute[Sequence[ShipmentLine]]):
    """The lines of its order a shipment carries (common.orders.records.ShipmentLine), a
    list of maps."""

    attr_type = LIST

    def serialize(self, value: Sequence[ShipmentLine]) -> list:
        return [
            {"M": {"linea": {"N": str(line.linea)}, "cantidad": {"N": str(line.cantidad)}}}
            for line in value
        ]

    def deserialize(self, value: list) -> tuple[ShipmentLine, ...]:
        return tuple(
            ShipmentLine(linea=int(e["M"]["linea"]["N"]), cantidad=int(e["M"]["cantidad"]["N"]))
            for e in value
        )


class ShipmentModel(Model):
    Meta = model_meta("ShipmentsTable")

    id = NumberAttribute(hash_key=True)
    pedido_id = NumberAttribute(attr_name="pedidoId")
    status = UnicodeAttribute()
    tipo_envio = UnicodeAttribute(attr_name="tipoEnvio")
    transportista = UnicodeAttribute()
    guia_despecho = UnicodeAttribute(attr_name="guiaDespecho")
    # Personal (common.platform.personal.SHIPMENT): null once the person's data is erased.
    ruta_descripcion = UnicodeAttribute(attr_name="rutaDescripcion", null=True)
    destino = UnicodeAttribute(null=True)
    # Stored as the API's ISO strings (common.platform.clock.to_iso), returned unchanged.
    fecha_estimada_entrega = UnicodeAttribute(attr_name="fechaEstimadaEntrega")
    creado_en = UnicodeAttribute(attr_name="creadoEn")
    owner_id = NumberAttribute(attr_name="userId", null=True)
    # Its status changes (common.platform.history), each appended by the write that makes it.
    historial = ListAttribute(of=HistoryEntryAttribute, null=True)
    status_shard = UnicodeAttribute(attr_name="statusShard")
    shard = NumberAttribute()
    # Tracking (common.orders.records.Shipment): absent on a shipment stored before it.
    codigo_seguimiento = UnicodeAttribute(attr_name="codigoSeguimiento", null=True)
    estado_seguimiento = UnicodeAttribute(attr_name="estadoSeguimiento", null=True)
    # Personal (common.platform.personal.SHIPMENT): an incident's words and the last
    # event, which carries them too.
    incidencia_detalle = UnicodeAttribute(attr_name="incidenciaDetalle", null=True)
    incidencia_fecha = UnicodeAttribute(attr_name="incidenciaFecha", null=True)
    ultimo_evento_en = UnicodeAttribute(attr_name="ultimoEventoEn", null=True)
    ultimo_evento = UnicodeAttribute(attr_name="ultimoEvento", null=True)
    atraso_avisado = UnicodeAttribute(attr_name="atrasoAvisado", null=True)
    vence = UnicodeAttribute(null=True)
    # Parts of an order (docs/api.md#shipments-of-parts): absent on a shipment without
    # lines, and on every shipment stored before them.
    bodega_id = NumberAttribute(attr_name="bodegaId", null=True)
    lineas = ShipmentLinesAttribute(null=True)
    salida = UnicodeAttribute(null=True)

    by_shard = ListIndex()
    by_status = ShipmentStatusIndex()
    by_order = OrderIndex()
    by_user = OwnerIndex()
    due = DueIndex()
