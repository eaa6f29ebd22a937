"""The order and the shipment as stored and shown (docs/api.md#the-order,
docs/api.md#the-shipment).

The orders and shipping functions own them; they are here, in the layer,
because other functions read them too without importing their owner: the users function
(a person's data, docs/personal-data.md), the dashboard's figures and the webhooks'
events (the tables' stream images). Their personal fields (common.platform.personal) may be None:
an order or a shipment of a person whose data was erased keeps its facts and loses
those.
"""

from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from common.identity.callers import OPERATOR
from common.platform import history
from common.platform.clock import to_iso, utcnow
from common.platform.errors import NotFound, not_found
from common.platform.history import Entry

# The status each is created in: its history's first entry.
ORDER_CREATED, SHIPMENT_CREATED = "PENDIENTE", "CREADO"
# A cancelled order's status: final, its total no longer counts (the dashboard's day).
ORDER_CANCELLED = "CANCELADO"
# Where an order's units are while it holds them, and after they left.
HOLDING_STATUSES = ("APROBADO", "EN_ENVIO", "ENTREGADO")
SHIPPED_STATUSES = ("EN_ENVIO", "ENTREGADO")
# The warehouse that held every unit before warehouses existed (common.stock.records:
# PRINCIPAL_ID; the orders' records do not read the inventory's).
PRINCIPAL_ID = 1
# How an approval assigns units to warehouses when the order does not say
# (common.stock.moves.BY_PRIORITY).
BY_PRIORITY = "PRIORIDAD"


@dataclass(frozen=True, kw_only=True)
class Assignment:
    """Units of a line held in (or taken out of) one warehouse."""

    bodega_id: int
    cantidad: int


@dataclass(frozen=True, kw_only=True)
class OrderLine:
    """One line of an order (docs/api.md#orders-of-several-lines): its product as it was
    when the order was placed (None: placed before lines were kept, or checked by a
    stock check that says only true or false), its units, where they are held
    (`asignaciones`, none until approved), and how many are on their way, delivered and
    returned."""

    linea: int
    producto_id: int
    sku: str | None
    nombre: str | None
    cantidad: int
    precio_unitario: Decimal | int | None
    bodega_id: int | None = None  # the warehouse the line is pinned to
    asignaciones: tuple[Assignment, ...] = ()
    cantidad_enviada: int = 0
    cantidad_entregada: int = 0
    cantidad_devuelta: int = 0


@dataclass(frozen=True, kw_only=True)
class ReturnCount:
    """What returns hold of one line of an order (docs/api.md#returns): its units in
    returns not rejected nor cancelled (asked for, approved or received: not returnable
    again), and those received back (restocked or discarded: its `cantidadDevuelta`)."""

    linea: int
    en_devolucion: int = 0
    devuelta: int = 0


# A delivered shipment's status: no longer late, whatever its estimate.
SHIPMENT_DELIVERED = "ENTREGADO"


@dataclass(frozen=True, kw_only=True)
class NewOrder:
    """What a client may set on a new order; id, status, creadoEn and observaciones are
    the service's own and ignored when sent. (A new order's text fields are never None:
    None is what erasing leaves on a stored one.) An order of one line also names its
    product and units as the contract's orders do; one of several, None."""

    user_id: int
    user_email: str | None
    cliente_nombre: str | None
    total: Decimal | int
    tipo_pedido: str
    destino: str | None
    producto_id: int | None
    cantidad: int | None
    lineas: tuple[OrderLine, ...] = ()
    estrategia: str = BY_PRIORITY


@dataclass(frozen=True, kw_only=True)
class Order(NewOrder):
    """An order as stored and shown. One stored before lines were kept answers its one
    line, its units held in PRINCIPAL while it holds any."""

    id: int
    status: str
    observaciones: str | None
    creado_en: str
    # The role of the caller who placed it (its history's first entry); None for an
    # order placed before it was kept.
    creado_por: str | None = field(default=None, metadata={"internal": True})
    # What its returns hold of each line, written only by the returns' own conditional
    # writes (on `devoluciones_version`, the number of those writes): never with the
    # lines, so no other write of the order loses a return's count, nor a return another
    # write's. None on an order no return has touched.
    devoluciones: tuple[ReturnCount, ...] | None = field(default=None, metadata={"internal": True})
    devoluciones_version: int | None = field(default=None, metadata={"internal": True})

    def __post_init__(self) -> None:
        if not self.lineas and self.producto_id is not None and self.cantidad is not None:
            object.__setattr__(self, "lineas", (stored_line(self),))
        elif self.lineas is None:
            object.__setattr__(self, "lineas", ())
        if self.estrategia is None:  # stored before strategies
            object.__setattr__(self, "estrategia", BY_PRIORITY)
        if self.devoluciones:
            back = {count.linea: count.devuelta for count in self.devoluciones}
            lines = tuple(
                replace(line, cantidad_devuelta=back[line.linea]) if line.linea in back else line
                for line in self.lineas
            )
            object.__setattr__(self, "lineas", lines)

    def return_count(self, linea: int) -> ReturnCount:
        """What returns hold of one of its lines (nothing, for one no return named)."""
        found = {count.linea: count for count in self.devoluciones or ()}
        return found.get(linea, ReturnCount(linea=linea))


def stored_line(order: Order) -> OrderLine:
    """The one line of an order stored before lines were kept, as its status says it is."""
    assert order.producto_id is not None and order.cantidad is not None
    c = order.cantidad
    held = (Assignment(bodega_id=PRINCIPAL_ID, cantidad=c),)
    return OrderLine(
        linea=1,
        producto_id=order.producto_id,
        sku=None,
        nombre=None,
        cantidad=c,
        precio_unitario=None,
        asignaciones=held if order.status in HOLDING_STATUSES else (),
        cantidad_enviada=c if order.status in SHIPPED_STATUSES else 0,
        cantidad_entregada=c if order.status == "ENTREGADO" else 0,
    )


@dataclass(frozen=True, kw_only=True)
class ShipmentLine:
    """Units of one line of its order a shipment carries (docs/api.md#shipments-of-parts)."""

    linea: int
    cantidad: int


def _shown_with_lines() -> Any:
    """A field a shipment shows only when it carries lines of its order: one without them
    answers what the contract's shipments answer, no more (docs/api.md#shipments-of-parts)."""
    return field(default=None, metadata={"omitted_when_empty": True})


@dataclass(frozen=True, kw_only=True)
class NewShipment:
    """Everything a client sets on a shipment; the rest is generated. `lineas` and
    `bodegaId`: the units of its order it carries, from one warehouse (none: the
    contract's shipment, which carries no units the platform counts)."""

    pedido_id: int
    tipo_envio: str
    transportista: str
    destino: str | None
    bodega_id: int | None = _shown_with_lines()
    lineas: tuple[ShipmentLine, ...] = field(default=(), metadata={"omitted_when_empty": True})


@dataclass(frozen=True)
class Incident:
    """A shipment's newest incident (docs/api.md#tracking): what the carrier said, and when."""

    detalle: str | None  # personal (common.platform.personal): None once erased
    fecha: str


def _internal() -> Any:
    return field(default=None, metadata={"internal": True})


def _derived() -> Any:
    """A field the record works out itself: shown, never stored."""
    return field(init=False, metadata={"derived": True})


@dataclass(frozen=True, kw_only=True)
class Shipment(NewShipment):
    """A shipment; its dates already in the platform's time format."""

    id: int
    status: str
    guia_despecho: str
    ruta_descripcion: str | None
    fecha_estimada_entrega: str
    creado_en: str
    # Tracking (docs/api.md#tracking): the public code (None only for a shipment stored
    # before codes, until the backfill gives it one), and the newest effective tracking
    # state (None on one stored before tracking: it follows the status, as a PATCH sets it).
    codigo_seguimiento: str | None = None
    estado_seguimiento: str | None = None
    # Whose order it fulfils (the order's userId; None for an order unknown when it was
    # created): its customer may follow it. Not shown in the API.
    owner_id: int | None = _internal()
    # Its newest incident, kept flat (shown as `incidencia`); its detalle is personal.
    incidencia_detalle: str | None = _internal()
    incidencia_fecha: str | None = _internal()
    # The newest `fecha` of its tracking events (the forward-only rule compares with it),
    # and the last event recorded as the API shows it (JSON: the `envio.evento` webhook
    # reads it off the table's stream; it holds a detalle, so an erasure removes it).
    ultimo_evento_en: str | None = _internal()
    ultimo_evento: str | None = _internal()
    # When `envio.atrasado` was made for it (at most once).
    atraso_avisado: str | None = _internal()
    # When its units left its warehouse (its first EN_RUTA or ENTREGADO, for a shipment
    # with lines): written with the status change that took them, so a later move takes
    # nothing more.
    salida: str | None = _internal()
    incidencia: Incident | None = _derived()
    # True while not delivered past its estimate, at the instant the record is read.
    atrasado: bool = _derived()

    def __post_init__(self) -> None:
        if self.lineas is None:  # stored before shipments carried lines
            object.__setattr__(self, "lineas", ())
        if self.estado_seguimiento is None:
            object.__setattr__(self, "estado_seguimiento", self.status)
        incident = (
            Incident(self.incidencia_detalle, self.incidencia_fecha)
            if self.incidencia_fecha is not None
            else None
        )
        object.__setattr__(self, "incidencia", incident)
        object.__setattr__(self, "atrasado", late(self, to_iso(utcnow())))


def late(shipment: Shipment, now: str) -> bool:
    """Not delivered, and its estimate passed (both in the platform's time format)."""
    return shipment.status != SHIPMENT_DELIVERED and shipment.fecha_estimada_entrega < now


@dataclass(frozen=True, kw_only=True)
class TrackingEvent:
    """One tracking event of a shipment (docs/api.md#tracking), as kept and shown: every
    event is kept, whether or not it moved the shipment."""

    id: int
    estado: str
    fecha: str
    ubicacion: str | None
    detalle: str | None  # personal (common.platform.personal): None once erased
    id_externo: str | None
    registrado_en: str
    envio_id: int = field(default=0, metadata={"internal": True})


def unknown_order(order_id: int) -> NotFound:
    return not_found("ORDER_NOT_FOUND", "Order", order_id)


def order_history(order: Order, changes: list[Entry]) -> list[Entry]:
    """An order's history as the API shows it (docs/api.md#history): its creation, by
    whoever placed it, then its kept changes."""
    return history.shown(Entry(ORDER_CREATED, order.creado_en, order.creado_por), changes)


def shipment_history(shipment: Shipment, changes: list[Entry]) -> list[Entry]:
    """A shipment's history as the API shows it: its creation (only operators create
    shipments), then its kept changes."""
    return history.shown(Entry(SHIPMENT_CREATED, shipment.creado_en, OPERATOR), changes)
