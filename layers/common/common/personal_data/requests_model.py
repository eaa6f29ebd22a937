"""The record of rights requests (docs/personal-data.md): one item per request a person or
an operator made about a person's data, what was asked and what was answered; and, on
an accepted erasure's item, the erasure's progress (the saga the erasure function runs).

It holds no personal data: a userId, a kind, a role, a time and a status code; while an
erasure runs, the pool's name for the account it will delete last (an id the pool
generated), gone once it is deleted. Listed newest first from `recientes`: `orden` falls
as ids rise, over 16 shards (docs/capacity.md), merged as every list is.

The users function owns the table; the model is the layer's because the erasure function
records an erasure's progress on its request's item (common.personal_data.repository).
"""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from common.storage.tables import model_meta

SHARDS = 16


class RecentIndex(GlobalSecondaryIndex):
    """The requests by shard, newest first (`orden` ascending)."""

    class Meta:
        index_name = "recientes"
        projection = AllProjection()

    shard = NumberAttribute(hash_key=True)
    orden = NumberAttribute(range_key=True)


class DataRequestModel(Model):
    Meta = model_meta("DataRequestsTable")

    id = NumberAttribute(hash_key=True)
    # The request as recorded: set by the answer (an erasure's progress may come first).
    user_id = NumberAttribute(attr_name="userId", null=True)
    tipo = UnicodeAttribute(null=True)
    origen = UnicodeAttribute(null=True)
    fecha = UnicodeAttribute(null=True)
    resultado = NumberAttribute(null=True)
    shard = NumberAttribute(null=True)
    orden = NumberAttribute(null=True)
    # An accepted erasure's progress: EN_CURSO, then COMPLETADA (its stream's record of
    # that change tells the integrators: usuario.eliminado).
    estado = UnicodeAttribute(null=True)
    paso = UnicodeAttribute(null=True)
    desde = NumberAttribute(null=True)
    cuenta = UnicodeAttribute(null=True)
    completada_en = UnicodeAttribute(attr_name="completadaEn", null=True)

    recientes = RecentIndex()
