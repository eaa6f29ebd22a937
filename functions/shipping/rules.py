"""Shipping rules as plain functions: what a valid new shipment is, what a shipment holds.

The clock is a parameter (`now`), so the date arithmetic is tested with a fixed instant;
the routes pass common.platform.clock.utcnow(). The shipment's shape (NewShipment, Shipment) is the
layer's (common.orders.records): the users function reads shipments too.
"""

from datetime import datetime

from common.orders.records import SHIPMENT_CREATED, NewShipment, Shipment
from common.platform.clock import to_iso
from common.platform.errors import NotFound, not_found
from common.platform.validation import (
    Checker,
    query_choice,
    query_positive_integer,
    required_query_choice,
)
from shipping.parts import parse_lines
from shipping.strategies import TIPOS_ENVIO, for_tipo
from shipping.tracking import new_code

# Lifecycle order; any state may follow any other (docs/api.md#shipping).
STATUSES = ("CREADO", "ASIGNADO", "EN_RUTA", "ENTREGADO")
INITIAL_STATUS = SHIPMENT_CREATED


def unknown_shipment(shipment_id: int) -> NotFound:
    return not_found("SHIPMENT_NOT_FOUND", "Shipment", shipment_id)


def parse_shipment(body: dict) -> NewShipment:
    """The POST body; client-sent generated fields and unknown fields are ignored."""
    check = Checker(body)
    pedido_id = check.identifier("pedidoId")
    tipo_envio = check.choice("tipoEnvio", TIPOS_ENVIO)
    transportista, destino = check.text("transportista"), check.text("destino")
    lineas, bodega_id = parse_lines(check)
    new_shipment = NewShipment(
        pedido_id=pedido_id,
        tipo_envio=tipo_envio,
        transportista=transportista,
        destino=destino,
        bodega_id=bodega_id,
        lineas=lineas,
    )
    check.done()
    return new_shipment


def created_shipment(
    new_shipment: NewShipment, shipment_id: int, now: datetime, owner_id: int | None = None
) -> Shipment:
    """creadoEn, the estimate and the guide's date all come from the one instant `now`."""
    strategy = for_tipo(new_shipment.tipo_envio)
    assert new_shipment.destino is not None  # parse_shipment's: a new one has its address
    return Shipment(
        id=shipment_id,
        pedido_id=new_shipment.pedido_id,
        status=INITIAL_STATUS,
        tipo_envio=strategy.tipo,
        transportista=new_shipment.transportista,
        guia_despecho=strategy.guide(now, shipment_id),
        ruta_descripcion=strategy.route(new_shipment.destino),
        destino=new_shipment.destino,
        fecha_estimada_entrega=to_iso(strategy.estimated_delivery(now)),
        creado_en=to_iso(now),
        owner_id=owner_id,
        codigo_seguimiento=new_code(),
        estado_seguimiento=INITIAL_STATUS,
        bodega_id=new_shipment.bodega_id,
        lineas=new_shipment.lineas,
    )


def id_of_guide(guide: str) -> int | None:
    """The shipment id a dispatch guide carries (its last part: shipping.strategies), or
    None for text no guide of ours is."""
    prefix, _, number = guide.rpartition("-")
    if not prefix or not number.isascii() or not number.isdigit() or len(number) > 19:
        return None
    return int(number)


def parse_status(raw: str | None) -> str:
    """The PATCH's `status` query parameter: one of STATUSES, exactly."""
    return required_query_choice("status", raw, STATUSES)


def parse_filters(
    raw_status: str | None, raw_pedido_id: str | None
) -> tuple[str | None, int | None]:
    """The shipments list's filters: a status, an order id, both or neither."""
    return (
        query_choice("status", raw_status, STATUSES),
        query_positive_integer("pedidoId", raw_pedido_id),
    )
