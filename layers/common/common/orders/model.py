"""The table behind orders, its indexes of every order, of orders by status and by
customer (in id order), and the sparse index of orders whose event still has to be
published. Status and pending are write-sharded (docs/capacity.md): an order is written
once to its status shard when created (16 shards), and twice to its pending shard, when
created and when its event is out (32 shards).

The orders function owns the table; the model is the layer's because the users function
reads a person's orders by the customer index, and erases their personal fields
(common.platform.personal.ORDER: nullable here, absent once erased; docs/personal-data.md)."""

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from pynamodb.attributes import (
    Attribute,
    ListAttribute,
    NumberAttribute,
    NumberSetAttribute,
    UnicodeAttribute,
)
from pynamodb.constants import LIST, MAP
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, IncludeProjection
from pynamodb.models import Model

from common.orders.records import BY_PRIORITY, Assignment, OrderLine, ReturnCount
from common.orders.return_model import ReturnModel
from common.storage.tables import DecimalAttribute, HistoryEntryAttribute, ListIndex, model_meta

# eventoPendiente is `PENDING#<shard>` while an order's event waits to be published; the
# index holds exactly those orders, because only they carry the attribute.
PENDING = "PENDING"
PENDING_SHARDS = 32
STATUS_SHARDS = 16
# What the status index holds of an order besides its keys: every field of an order as
# it was before lines (common.orders.records.Order; a projection cannot change in place:
# a page of a status reads its orders by key), and nothing the outbox changes, so that
# taking an order off the outbox does not write its status shard again.
STATUS_PROJECTION = [
    "userId",
    "userEmail",
    "clienteNombre",
    "total",
    "status",
    "tipoPedido",
    "destino",
    "observaciones",
    "productoId",
    "cantidad",
    "creadoEn",
]


def _number(value: Any) -> dict:
    return {"N": str(value)} if value is not None else {"NULL": True}


def _text(value: str | None) -> dict:
    return {"S": value} if value is not None else {"NULL": True}


def _read(entry: dict, kind: type = int) -> Any:
    if not entry or "NULL" in entry:
        return None
    if "S" in entry:
        return entry["S"]
    return kind(entry["N"])


# A line's attributes, as the API names them (the stream images and the item read alike).
_COUNTS = ("cantidadEnviada", "cantidadEntregada", "cantidadDevuelta")


class LinesAttribute(Attribute[Sequence[OrderLine]]):
    """An order's lines (common.orders.records.OrderLine), a list of maps (set from a
    list: PynamoDB takes anything else as one element of it)."""

    attr_type = LIST

    def serialize(self, value: Sequence[OrderLine]) -> list:
        return [{"M": _line_map(line)} for line in value]

    def deserialize(self, value: list) -> tuple[OrderLine, ...]:
        return tuple(_line_of(entry["M"]) for entry in value)


def _line_map(line: OrderLine) -> dict:
    held = [
        {"M": {"bodegaId": _number(a.bodega_id), "cantidad": _number(a.cantidad)}}
        for a in line.asignaciones
    ]
    counts = (line.cantidad_enviada, line.cantidad_entregada, line.cantidad_devuelta)
    return {
        "linea": _number(line.linea),
        "productoId": _number(line.producto_id),
        "sku": _text(line.sku),
        "nombre": _text(line.nombre),
        "cantidad": _number(line.cantidad),
        "precioUnitario": _number(line.precio_unitario),
        "bodegaId": _number(line.bodega_id),
        "asignaciones": {"L": held},
        **{name: _number(count) for name, count in zip(_COUNTS, counts, strict=True)},
    }


def _line_of(entry: dict) -> OrderLine:
    held = tuple(
        Assignment(bodega_id=_read(a["M"]["bodegaId"]), cantidad=_read(a["M"]["cantidad"]))
        for a in entry.get("asignaciones", {}).get("L", [])
    )
    sent, delivered, returned = (_read(entry.get(name, {})) or 0 for name in _COUNTS)
    return OrderLine(
        linea=_read(entry["linea"]),
        producto_id=_read(entry["productoId"]),
        sku=_read(entry.get("sku", {})),
        nombre=_read(entry.get("nombre", {})),
        cantidad=_read(entry["cantidad"]),
        precio_unitario=_read(entry.get("precioUnitario", {}), Decimal),
        bodega_id=_read(entry.get("bodegaId", {})),
        asignaciones=held,
        cantidad_enviada=sent,
        cantidad_entregada=delivered,
        cantidad_devuelta=returned,
    )


class OnShipmentsAttribute(Attribute[dict[tuple[int, int], int]]):
    """An order's units on shipments by (line, warehouse), a map keyed `<linea>-<bodegaId>`
    (docs/api.md#shipments-of-parts): each shipment's create adds to it, by arithmetic
    on the server, on the condition that it stays within what the line holds there."""

    attr_type = MAP

    def serialize(self, value: dict[tuple[int, int], int]) -> dict:
        return {on_shipments_key(*key): {"N": str(units)} for key, units in value.items()}

    def deserialize(self, value: dict) -> dict[tuple[int, int], int]:
        found = {}
        for key, entry in value.items():
            linea, _, bodega = key.partition("-")
            found[(int(linea), int(bodega))] = int(entry["N"])
        return found


def on_shipments_key(linea: int, bodega_id: int) -> str:
    return f"{linea}-{bodega_id}"


class ReturnCountsAttribute(Attribute[Sequence[ReturnCount] | dict[int, ReturnCount]]):
    """What an order's returns hold of each line (common.orders.records.ReturnCount), a
    map by line number: `{"2": {"enDevolucion": 3, "devuelta": 1}}`. (An update sets it
    from a dict, by line: PynamoDB serializes anything else as a plain value.)"""

    attr_type = MAP

    def serialize(self, value: Sequence[ReturnCount] | dict[int, ReturnCount]) -> dict:
        if isinstance(value, dict):
            value = list(value.values())
        return {
            str(count.linea): {
                "M": {
                    "enDevolucion": _number(count.en_devolucion),
                    "devuelta": _number(count.devuelta),
                }
            }
            for count in value
        }

    def deserialize(self, value: dict) -> tuple[ReturnCount, ...]:
        return tuple(
            ReturnCount(
                linea=int(linea),
                en_devolucion=_read(entry["M"].get("enDevolucion", {})) or 0,
                devuelta=_read(entry["M"].get("devuelta", {})) or 0,
            )
            for linea, entry in sorted(value.items(), key=lambda kv: int(kv[0]))
        )


class OrderStatusIndex(GlobalSecondaryIndex):
    """Orders by `statusShard`, `<status>#<shard>` (common.storage.shards), in id order."""

    class Meta:
        index_name = "byStatusShard"
        projection = IncludeProjection(STATUS_PROJECTION)

    status_shard = UnicodeAttribute(hash_key=True, attr_name="statusShard")
    id = NumberAttribute(range_key=True)


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
    # Personal (common.platform.personal.ORDER): null once the person's data is erased.
    user_email = UnicodeAttribute(attr_name="userEmail", null=True)
    cliente_nombre = UnicodeAttribute(attr_name="clienteNombre", null=True)
    total = DecimalAttribute()
    status = UnicodeAttribute()
    tipo_pedido = UnicodeAttribute(attr_name="tipoPedido")
    destino = UnicodeAttribute(null=True)
    observaciones = UnicodeAttribute(null=True)
    # An order of one line names its product and units as the contract's do; one of
    # several has neither (its lines do).
    producto_id = NumberAttribute(attr_name="productoId", null=True)
    cantidad = NumberAttribute(null=True)
    # Its lines (common.orders.records.OrderLine); an order stored before they were kept
    # has none, and answers its one line (`make migrate-stock` writes it).
    lineas = LinesAttribute(null=True)
    estrategia = UnicodeAttribute(null=True, default=BY_PRIORITY)
    creado_en = UnicodeAttribute(attr_name="creadoEn")
    evento_pendiente = UnicodeAttribute(attr_name="eventoPendiente", null=True)
    creado_por = UnicodeAttribute(attr_name="creadoPor", null=True)
    # Its parts (docs/api.md#shipments-of-parts, written by the shipping function): its
    # units on shipments, and the shipments whose leaving and delivery its lines counted.
    # Absent until its first shipment with lines.
    en_envios = OnShipmentsAttribute(attr_name="enEnvios", null=True)
    envios_salidos = NumberSetAttribute(attr_name="enviosSalidos", null=True)
    envios_entregados = NumberSetAttribute(attr_name="enviosEntregados", null=True)
    # The shipments brought back whose carrier's return was opened (docs/api.md#returns):
    # added in the return's transaction, on the condition that it is not there yet, so
    # one shipment opens one return however many DEVUELTO events arrive at once.
    envios_devueltos = NumberSetAttribute(attr_name="enviosDevueltos", null=True)
    # Its status changes (common.platform.history), each appended by the write that makes it.
    historial = ListAttribute(of=HistoryEntryAttribute, null=True)
    # What its returns hold of each line, and how many times they wrote it (the
    # condition of their next write): common.orders.records.Order.devoluciones.
    devoluciones = ReturnCountsAttribute(null=True)
    devoluciones_version = NumberAttribute(attr_name="devolucionesVersion", null=True)
    status_shard = UnicodeAttribute(attr_name="statusShard")
    shard = NumberAttribute()

    by_shard = ListIndex()
    by_status = OrderStatusIndex()
    by_user = UserIndex()
    pending_events = PendingEventIndex()


# The orders function's tables: its orders, and its returns (whose model is its own module,
# common.orders.return_model, named here as the orders function's too).
__all__ = [
    "PENDING",
    "PENDING_SHARDS",
    "STATUS_PROJECTION",
    "STATUS_SHARDS",
    "LinesAttribute",
    "OrderModel",
    "OrderStatusIndex",
    "PendingEventIndex",
    "ReturnCountsAttribute",
    "ReturnModel",
    "UserIndex",
]
