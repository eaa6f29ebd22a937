"""The table behind orders, its indexes of every order, of orders by status and by
customer (in id order), and the sparse index of orders whose event still has to be
published. Status and pending are write-sharded (docs/capacity.md): an order is written
once to its status shard when created (16 shards), and twice to its pending shard, when
created and when its event is out (32 shards).

The orders function owns the table; the model is the layer's because the users function
reads a person's orders by the customer index, and erases their personal fields
(common.personal.ORDER: nullable here, absent once erased; docs/personal-data.md)."""

from pynamodb.attributes import ListAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, IncludeProjection
from pynamodb.models import Model

from common.storage import DecimalAttribute, HistoryEntryAttribute, ListIndex, model_meta

# eventoPendiente is `PENDING#<shard>` while an order's event waits to be published; the
# index holds exactly those orders, because only they carry the attribute.
PENDING = "PENDING"
PENDING_SHARDS = 32
STATUS_SHARDS = 16
# What the status index holds of an order besides its keys: every field of an order
# (common.records.Order) and nothing the outbox changes, so that taking an order off the
# outbox does not write its status shard again.
STATUS_PROJECTION = [
    "userId",
    "userEmail",
    "clienteNombre",
    "total",
    "status",
    "tipoPedido",
    "destino",
    "observaciones",
    "productoId",
    "cantidad",
    "creadoEn",
]


class OrderStatusIndex(GlobalSecondaryIndex):
    """Orders by `statusShard`, `<status>#<shard>` (common.shards), in id order."""

    class Meta:
        index_name = "byStatusShard"
        projection = IncludeProjection(STATUS_PROJECTION)

    status_shard = UnicodeAttribute(hash_key=True, attr_name="statusShard")
    id = NumberAttribute(range_key=True)


class PendingEventIndex(GlobalSecondaryIndex):
    class Meta:
        index_name = "pendingEvents"
        projection = AllProjection()

    evento_pendiente = UnicodeAttribute(hash_key=True, attr_name="eventoPendiente")
    id = NumberAttribute(range_key=True)


class UserIndex(GlobalSecondaryIndex):
    """A customer's orders, in id order (docs/api.md#who-may-do-what)."""

    class Meta:
        index_name = "byUser"
        projection = AllProjection()

    user_id = NumberAttribute(hash_key=True, attr_name="userId")
    id = NumberAttribute(range_key=True)


class OrderModel(Model):
    Meta = model_meta("OrdersTable")

    id = NumberAttribute(hash_key=True)
    user_id = NumberAttribute(attr_name="userId")
    # Personal (common.personal.ORDER): null once the person's data is erased.
    user_email = UnicodeAttribute(attr_name="userEmail", null=True)
    cliente_nombre = UnicodeAttribute(attr_name="clienteNombre", null=True)
    total = DecimalAttribute()
    status = UnicodeAttribute()
    tipo_pedido = UnicodeAttribute(attr_name="tipoPedido")
    destino = UnicodeAttribute(null=True)
    observaciones = UnicodeAttribute(null=True)
    producto_id = NumberAttribute(attr_name="productoId")
    cantidad = NumberAttribute()
    creado_en = UnicodeAttribute(attr_name="creadoEn")
    evento_pendiente = UnicodeAttribute(attr_name="eventoPendiente", null=True)
    creado_por = UnicodeAttribute(attr_name="creadoPor", null=True)
    # Its status changes (common.history), each appended by the write that makes it.
    historial = ListAttribute(of=HistoryEntryAttribute, null=True)
    status_shard = UnicodeAttribute(attr_name="statusShard")
    shard = NumberAttribute()

    by_shard = ListIndex()
    by_status = OrderStatusIndex()
    by_user = UserIndex()
    pending_events = PendingEventIndex()
