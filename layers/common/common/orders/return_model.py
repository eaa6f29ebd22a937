"""The table behind returns (docs/api.md#returns) and its indexes: of every return, by
state (over 16 shards, as orders'), by order and by the order's customer, in id order.

The orders function owns the table; the model is the layer's because the users and
erasure functions read a person's returns by the customer index and strip their
`comentario` (common.platform.personal.RETURN: nullable here, absent once erased), and
the webhooks' events read its stream images."""

from collections.abc import Sequence

from pynamodb.attributes import Attribute, ListAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.constants import LIST
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from common.orders.return_records import Return, ReturnLine
from common.storage import shards
from common.storage import tables as storage
from common.storage.tables import HistoryEntryAttribute, ListIndex, model_meta

STATE_SHARDS = 16
COUNTER = "returns"


def _number(value: int | None) -> dict:
    return {"N": str(value)} if value is not None else {"NULL": True}


def _read(entry: dict | None) -> int | None:
    return None if not entry or "NULL" in entry else int(entry["N"])


class ReturnLinesAttribute(Attribute[Sequence[ReturnLine]]):
    """A return's lines, a list of maps."""

    attr_type = LIST

    def serialize(self, value: Sequence[ReturnLine]) -> list:
        return [
            {
                "M": {
                    "linea": _number(line.linea),
                    "productoId": _number(line.producto_id),
                    "cantidad": _number(line.cantidad),
                    "reingresada": _number(line.reingresada),
                    "descartada": _number(line.descartada),
                    "bodegaId": _number(line.bodega_id),
                }
            }
            for line in value
        ]

    def deserialize(self, value: list) -> tuple[ReturnLine, ...]:
        return tuple(
            ReturnLine(
                linea=_read(m["linea"]) or 0,
                producto_id=_read(m["productoId"]) or 0,
                cantidad=_read(m["cantidad"]) or 0,
                reingresada=_read(m.get("reingresada")) or 0,
                descartada=_read(m.get("descartada")) or 0,
                bodega_id=_read(m.get("bodegaId")),
            )
            for m in (entry["M"] for entry in value)
        )


class ReturnStateIndex(GlobalSecondaryIndex):
    """Returns by `estadoShard`, `<estado>#<shard>`, in id order."""

    class Meta:
        index_name = "byStateShard"
        projection = AllProjection()

    estado_shard = UnicodeAttribute(hash_key=True, attr_name="estadoShard")
    id = NumberAttribute(range_key=True)


class ReturnOrderIndex(GlobalSecondaryIndex):
    class Meta:
        index_name = "byOrder"
        projection = AllProjection()

    pedido_id = NumberAttribute(hash_key=True, attr_name="pedidoId")
    id = NumberAttribute(range_key=True)


class ReturnUserIndex(GlobalSecondaryIndex):
    """A customer's returns (those of their orders), in id order."""

    class Meta:
        index_name = "byUser"
        projection = AllProjection()

    user_id = NumberAttribute(hash_key=True, attr_name="userId")
    id = NumberAttribute(range_key=True)


class ReturnModel(Model):
    Meta = model_meta("ReturnsTable")

    id = NumberAttribute(hash_key=True)
    pedido_id = NumberAttribute(attr_name="pedidoId")
    user_id = NumberAttribute(attr_name="userId")
    estado = UnicodeAttribute()
    origen = UnicodeAttribute()
    motivo = UnicodeAttribute()
    # Personal (common.platform.personal.RETURN): null once the person's data is erased.
    comentario = UnicodeAttribute(null=True)
    lineas = ReturnLinesAttribute()
    creado_en = UnicodeAttribute(attr_name="creadoEn")
    creado_por = UnicodeAttribute(attr_name="creadoPor", null=True)
    envio_id = NumberAttribute(attr_name="envioId", null=True)
    recepcion = UnicodeAttribute(null=True)
    historial = ListAttribute(of=HistoryEntryAttribute, null=True)
    estado_shard = UnicodeAttribute(attr_name="estadoShard")
    shard = NumberAttribute()

    by_shard = ListIndex()
    by_state = ReturnStateIndex()
    by_order = ReturnOrderIndex()
    by_user = ReturnUserIndex()


def item_of(ret: Return) -> ReturnModel:
    item = storage.listed(storage.to_item(ReturnModel, ret))
    item.estado_shard = shards.key(ret.estado, ret.id, STATE_SHARDS)
    return item


def return_of(item: ReturnModel) -> Return:
    return storage.to_domain(item, Return)
