"""Storage of orders."""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from common.storage import DecimalAttribute, model_meta


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

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "userId": self.user_id,
            "userEmail": self.user_email,
            "clienteNombre": self.cliente_nombre,
            "total": self.total,
            "status": self.status,
            "tipoPedido": self.tipo_pedido,
            "destino": self.destino,
            "observaciones": self.observaciones,
            "productoId": self.producto_id,
            "cantidad": self.cantidad,
            "creadoEn": self.creado_en,
        }
