"""Order rules as plain functions: a valid order, its initial state, its event."""

from dataclasses import asdict, dataclass
from decimal import Decimal

from common.validation import Checker

TIPOS_PEDIDO = ("NACIONAL", "INTERNACIONAL")
STATUSES = ("PENDIENTE", "APROBADO", "EN_ENVIO", "ENTREGADO", "CANCELADO")
INITIAL_STATUS = "PENDIENTE"
CUSTOMS_NOTE = "Pedido internacional — requiere documentación aduanera"


@dataclass(frozen=True)
class OrderRequest:
    """What a client may set on a new order; id, status, creadoEn and observaciones are
    the service's own and ignored when sent."""

    user_id: int
    user_email: str
    cliente_nombre: str
    total: Decimal | int
    tipo_pedido: str
    destino: str
    producto_id: int
    cantidad: int

    def as_attributes(self) -> dict:
        return asdict(self)


def parse_order(body: dict) -> OrderRequest:
    check = Checker(body)
    request = OrderRequest(
        user_id=check.integer("userId", minimum=1),
        user_email=check.email("userEmail"),
        cliente_nombre=check.text("clienteNombre"),
        total=check.number("total", minimum=0),
        tipo_pedido=check.choice("tipoPedido", TIPOS_PEDIDO),
        destino=check.text("destino"),
        producto_id=check.integer("productoId", minimum=1),
        cantidad=check.integer("cantidad", minimum=1),
    )
    check.done()
    return request


def observaciones_for(tipo_pedido: str) -> str | None:
    return CUSTOMS_NOTE if tipo_pedido == "INTERNACIONAL" else None


def approved_event(order: dict) -> dict:
    """The PedidoAprobadoEvent payload for an order as the API returns it."""
    return {"pedidoId": order["id"], "userEmail": order["userEmail"],
            "total": order["total"], "tipoPedido": order["tipoPedido"]}
