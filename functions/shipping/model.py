"""Storage of shipments: one item per shipment, under the JSON field names."""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from common.storage import JsonModel, model_meta


class ShipmentModel(JsonModel):
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
