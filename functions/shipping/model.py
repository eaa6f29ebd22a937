"""The shipping function's tables: shipments (the layer's model, common.orders.shipment_model,
as the users function reads shipments too) and their tracking events (the layer's too,
common.orders.tracking_model: a person's events are theirs); and its own two, the claims
of the tracking codes and the carriers."""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from common.orders.shipment_model import (
    DUE,
    DUE_SHARDS,
    STATUS_SHARDS,
    OrderIndex,
    OwnerIndex,
    ShipmentModel,
    ShipmentStatusIndex,
)
from common.orders.tracking_model import TrackingEventModel
from common.storage.tables import model_meta

__all__ = [
    "DUE",
    "DUE_SHARDS",
    "STATUS_SHARDS",
    "CarrierModel",
    "OrderIndex",
    "OwnerIndex",
    "ShipmentModel",
    "ShipmentStatusIndex",
    "TrackingCodeModel",
    "TrackingEventModel",
]


class TrackingCodeModel(Model):
    """A tracking code's claim: the key is the code, so no two shipments ever share one, and
    a code is found by one strongly consistent read (a shipment's code works the moment
    its creation is answered)."""

    Meta = model_meta("TrackingCodesTable")

    codigo = UnicodeAttribute(hash_key=True, attr_name="codigoSeguimiento")
    envio_id = NumberAttribute(attr_name="envioId")


class CarrierModel(Model):
    """A carrier (docs/api.md#carriers): its code is the key, so it is unique; its secret is
    stored sealed (common.webhooks.vault, bound to the code), never in plain text."""

    Meta = model_meta("CarriersTable")

    codigo = UnicodeAttribute(hash_key=True)
    id = NumberAttribute()
    nombre = UnicodeAttribute()
    secreto = UnicodeAttribute()
    creado_en = UnicodeAttribute(attr_name="creadoEn")
