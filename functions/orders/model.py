"""The table behind orders, its indexes of orders by status and by customer (in id order),
and the sparse index of orders whose event still has to be published."""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from common.storage import DecimalAttribute, StatusIndex, model_meta

# The value of eventoPendiente while an order's event waits to be published; the index
# holds exactly those orders, because only they carry the attribute.
PENDING = "PENDING"


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
    user_email = UnicodeAttribute(attr_name="userEmail")
    cliente_nombre = UnicodeAttribute(attr_name="clienteNombre")
    total = DecimalAttribute()
    status = UnicodeAttribute()
    tipo_pedido = UnicodeAttribute(attr_name="tipoPedido")
    destino = UnicodeAttribute()
    observaciones = UnicodeAttribute(null=True)
    producto_id = NumberAttribute(attr_name="productoId")
    cantidad = NumberAttribute()
    creado_en = UnicodeAttribute(attr_name="creadoEn")
    evento_pendiente = UnicodeAttribute(attr_name="eventoPendiente", null=True)

    by_status = StatusIndex()
    by_user = UserIndex()
    pending_events = PendingEventIndex()
