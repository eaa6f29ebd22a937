"""The tables behind webhooks: the endpoints (with their secrets), each event's delivery
to each endpoint, and the attempts, newest first.

An endpoint is listed like every other kind (byShard); the active ones are also in a
sparse index (`activos`) that the events read to find who subscribed: an endpoint is
there only while it is active, with its subscriptions and nothing secret. Endpoints are
few and rarely written, so one partition holds them all.

The webhooks function owns the tables; their models are the layer's because the events
and delivery functions read and write them too (common.webhooks.repository).
"""

from pynamodb.attributes import (
    BooleanAttribute,
    ListAttribute,
    MapAttribute,
    NumberAttribute,
    UnicodeAttribute,
)
from pynamodb.indexes import GlobalSecondaryIndex, IncludeProjection, KeysOnlyProjection
from pynamodb.models import Model

from common.storage.tables import ListIndex, model_meta

# activo's mark in the sparse index of active endpoints.
ACTIVE = "ACTIVO"


class ActiveIndex(GlobalSecondaryIndex):
    """The active endpoints and what each subscribed to, in id order."""

    class Meta:
        index_name = "activos"
        projection = IncludeProjection(["eventos", "creadoEn"])

    activo_marca = UnicodeAttribute(hash_key=True, attr_name="activoMarca")
    id = NumberAttribute(range_key=True)


class ReplacedSecret(MapAttribute):
    """A secret a rotation replaced, and until when it still signs."""

    secreto = UnicodeAttribute()
    hasta = UnicodeAttribute()


class WebhookModel(Model):
    Meta = model_meta("WebhooksTable")

    id = NumberAttribute(hash_key=True)
    url = UnicodeAttribute()
    eventos = ListAttribute(of=UnicodeAttribute)
    activo = BooleanAttribute()
    creado_en = UnicodeAttribute(attr_name="creadoEn")
    secreto = UnicodeAttribute()
    # The secrets rotations replaced, newest first (common.webhooks.records.Endpoint.anteriores).
    secretos_anteriores = ListAttribute(
        of=ReplacedSecret, attr_name="secretosAnteriores", null=True
    )
    # Written before several could sign at once: the one secret a rotation replaced.
    secreto_anterior = UnicodeAttribute(attr_name="secretoAnterior", null=True)
    secreto_anterior_hasta = UnicodeAttribute(attr_name="secretoAnteriorHasta", null=True)
    activo_marca = UnicodeAttribute(attr_name="activoMarca", null=True)
    shard = NumberAttribute()

    by_shard = ListIndex()
    activos = ActiveIndex()


class DeliveryUserIndex(GlobalSecondaryIndex):
    """The deliveries of events about one person (an order's or a shipment's userId), by
    which erasing their data finds them (functions/erasure); sparse: an event about no
    one (a product's) is not in it."""

    class Meta:
        index_name = "byUser"
        projection = KeysOnlyProjection()

    user_id = NumberAttribute(hash_key=True, attr_name="userId")
    event_id = UnicodeAttribute(range_key=True, attr_name="eventId")


class DeliveryModel(Model):
    """One event's delivery to one endpoint; gone after `expiration` (DynamoDB's TTL)."""

    Meta = model_meta("WebhookDeliveriesTable")

    webhook_id = NumberAttribute(hash_key=True, attr_name="webhookId")
    event_id = UnicodeAttribute(range_key=True, attr_name="eventId")
    type = UnicodeAttribute()
    body = UnicodeAttribute()
    estado = UnicodeAttribute()
    # Which send of the delivery this is: 0, then one more per re-send (stored as
    # `envio` since before it had a name of its own).
    reenvios = NumberAttribute(attr_name="envio")
    intentos = NumberAttribute()
    actualizado_en = UnicodeAttribute(attr_name="actualizadoEn")
    siguiente_intento = UnicodeAttribute(attr_name="siguienteIntento", null=True)
    expiration = NumberAttribute()
    # Whom its event is about (None: no one, or a delivery made before it was kept).
    user_id = NumberAttribute(attr_name="userId", null=True)

    by_user = DeliveryUserIndex()


class AttemptModel(Model):
    """One attempt, under its endpoint, by its place in the newest-first list."""

    Meta = model_meta("WebhookAttemptsTable")

    webhook_id = NumberAttribute(hash_key=True, attr_name="webhookId")
    id = NumberAttribute(range_key=True, attr_name="posicion")
    event_id = UnicodeAttribute(attr_name="eventId")
    type = UnicodeAttribute()
    intento = NumberAttribute()
    status_code = NumberAttribute(attr_name="statusCode", null=True)
    error = UnicodeAttribute(null=True)
    estado = UnicodeAttribute()
    timestamp = UnicodeAttribute()
    duracion_ms = NumberAttribute(attr_name="duracionMs")
    siguiente_intento = UnicodeAttribute(attr_name="siguienteIntento", null=True)
    expiration = NumberAttribute()
