"""A return as stored and shown (docs/api.md#returns): units of an order's delivered
lines coming back, why, and what became of each line once received.

The orders function owns returns; they are here, in the layer, because other functions
read them without importing it: the users function (a person's data: `comentario` is
personal, common.platform.personal.RETURN), the erasure function (it strips it) and the
webhooks' events (the table's stream images)."""

from dataclasses import dataclass, field

from common.platform import history
from common.platform.errors import NotFound, not_found
from common.platform.history import Entry

# Its states (docs/api.md#returns): asked for, then approved or rejected; an approved one
# received; an open one cancelled.
REQUESTED, APPROVED, REJECTED = "SOLICITADA", "APROBADA", "RECHAZADA"
RECEIVED, CANCELLED = "RECIBIDA", "CANCELADA"
STATES = (REQUESTED, APPROVED, REJECTED, RECEIVED, CANCELLED)
# The states whose units are no longer in a return: returnable again.
RELEASED = (REJECTED, CANCELLED)
# The states an erasure waits for (docs/api.md#personal-data), and the dashboard counts.
OPEN = (REQUESTED, APPROVED)
# Who asked: the order's customer, an operator, or the carrier that brought it back.
CUSTOMER_ORIGIN, OPERATOR_ORIGIN, CARRIER_ORIGIN = "customer", "operator", "transportista"
# Why: the caller's reasons, and the carrier's own.
REASONS = ("DANADO", "ERRONEO", "NO_CORRESPONDE", "ARREPENTIMIENTO", "OTRO")
NOT_DELIVERED = "NO_ENTREGADO"
MAX_COMMENT = 500
# The orders service's internal route (common.http.service_app.INTERNAL: another service's
# invoke alone reaches it) through which shipping opens a carrier's return when a
# shipment with lines comes back DEVUELTO: `{"pedidoId", "envioId", "lineas": [{"linea",
# "cantidad"}]}`, once per shipment.
CARRIER_RETURN_ROUTE = "/internal/devoluciones"


@dataclass(frozen=True, kw_only=True)
class ReturnLine:
    """Units of one line of the order, and once received how many went back into stock
    (into `bodega_id`) and how many were discarded."""

    linea: int
    producto_id: int
    cantidad: int
    reingresada: int = 0
    descartada: int = 0
    bodega_id: int | None = field(default=None, metadata={"internal": True})


@dataclass(frozen=True, kw_only=True)
class Return:
    id: int
    pedido_id: int
    estado: str
    origen: str
    motivo: str
    comentario: str | None  # personal: None once erased
    lineas: tuple[ReturnLine, ...]
    creado_en: str
    # The order's customer (whose it is: a customer sees their own only); the role of who
    # opened it (its history's first entry); the shipment a carrier brought it back on.
    user_id: int = field(default=0, metadata={"internal": True})
    creado_por: str | None = field(default=None, metadata={"internal": True})
    envio_id: int | None = field(default=None, metadata={"internal": True})
    # A reception under way: what it decided of each line (orders.return_rules.
    # reception_mark), claimed before its units go back into stock, so that no other
    # reception, nor a cancellation, can be decided until it is RECIBIDA.
    recepcion: str | None = field(default=None, metadata={"internal": True})


def unknown_return(return_id: int) -> NotFound:
    return not_found("RETURN_NOT_FOUND", "Return", return_id)


def return_history(ret: Return, changes: list[Entry]) -> list[Entry]:
    """A return's history as the API shows it: its opening, then its kept changes."""
    return history.shown(Entry(first_state(ret), ret.creado_en, ret.creado_por), changes)


def first_state(ret: Return) -> str:
    """A carrier's return opens approved; every other opens asked for."""
    return APPROVED if ret.origen == CARRIER_ORIGIN else REQUESTED
