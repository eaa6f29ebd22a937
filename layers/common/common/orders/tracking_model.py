"""The table behind shipments' tracking events (docs/api.md#tracking): each shipment's
events in one partition, keyed by their external id, appended and never rewritten but
to strip an erased person's words; and the index of a person's events, by the customer
of the shipment's order.

The shipping functions own the table; the model is the layer's because the users and
erasure functions read and strip a person's events by that index
(common.personal_data.repository): `detalle` is personal
(common.platform.personal.TRACKING_EVENT)."""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from common.orders.records import TrackingEvent
from common.storage.tables import model_meta

# An event's key in its shipment's partition: its external id, so a repeat finds the
# first (`x:<idExterno>`); one sent without is keyed by its own id (`n:<id>`).
EXTERNAL, OWN = "x:", "n:"


def key_of(event_id: int, id_externo: str | None) -> str:
    return EXTERNAL + id_externo if id_externo is not None else f"{OWN}{event_id}"


class PersonIndex(GlobalSecondaryIndex):
    """A person's events (sparse: those of shipments of an order whose customer was
    known), by shipment."""

    class Meta:
        index_name = "byUser"
        projection = AllProjection()

    user_id = NumberAttribute(hash_key=True, attr_name="userId")
    envio_id = NumberAttribute(range_key=True, attr_name="envioId")


class TrackingEventModel(Model):
    Meta = model_meta("ShipmentEventsTable")

    envio_id = NumberAttribute(hash_key=True, attr_name="envioId")
    clave = UnicodeAttribute(range_key=True)
    id = NumberAttribute()
    estado = UnicodeAttribute()
    # Stored as the API's ISO strings (common.platform.clock.to_iso), returned unchanged.
    fecha = UnicodeAttribute()
    ubicacion = UnicodeAttribute(null=True)
    # Personal (common.platform.personal.TRACKING_EVENT): null once the person's data is erased.
    detalle = UnicodeAttribute(null=True)
    id_externo = UnicodeAttribute(attr_name="idExterno", null=True)
    registrado_en = UnicodeAttribute(attr_name="registradoEn")
    user_id = NumberAttribute(attr_name="userId", null=True)

    by_user = PersonIndex()


def item_of(event: TrackingEvent, user_id: int | None) -> TrackingEventModel:
    return TrackingEventModel(
        event.envio_id,
        key_of(event.id, event.id_externo),
        id=event.id,
        estado=event.estado,
        fecha=event.fecha,
        ubicacion=event.ubicacion,
        detalle=event.detalle,
        id_externo=event.id_externo,
        registrado_en=event.registrado_en,
        user_id=user_id,
    )


def event_of(item: TrackingEventModel) -> TrackingEvent:
    return TrackingEvent(
        id=int(item.id),
        estado=item.estado,
        fecha=item.fecha,
        ubicacion=item.ubicacion,
        detalle=item.detalle,
        id_externo=item.id_externo,
        registrado_en=item.registrado_en,
        envio_id=int(item.envio_id),
    )
