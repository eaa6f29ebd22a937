"""The table behind shipments."""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from common.storage import model_meta


class ShipmentModel(Model):
    Meta = model_meta("ShipmentsTable")

    id = NumberAttribute(hash_key=True)
    pedido_id = NumberAttribute(attr_name="pedidoId")
    status = UnicodeAttribute()
    tipo_envio = UnicodeAttribute(attr_name="tipoEnvio")
    transportista = UnicodeAttribute()
    guia_despecho = UnicodeAttribute(attr_name="guiaDespecho")
    ruta_descripcion = UnicodeAttribute(attr_name="rutaDescripcion")
    destino = UnicodeAttribute()
    # Stored as the API's ISO strings (common.clock.to_iso), returned unchanged.
    fecha_estimada_entrega = UnicodeAttribute(attr_name="fechaEstimadaEntrega")
    creado_en = UnicodeAttribute(attr_name="creadoEn")
