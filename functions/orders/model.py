"""The table behind orders, and its index of orders by status (in id order)."""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from common.storage import DecimalAttribute, StatusIndex, model_meta


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

    by_status = StatusIndex()
