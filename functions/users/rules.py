"""A person's rights over their data (docs/api.md#personal-data), as plain functions: whose
data a request is about, what each body must hold, what keeps an erasure waiting (their
orders and shipments still in flight), and what the record of requests holds."""

from dataclasses import dataclass

from common.identity.callers import Caller
from common.orders.records import Order, Shipment
from common.platform.errors import Conflict, Forbidden, NotFound
from common.platform.ids import possible_id
from common.platform.validation import EMAIL, MAX_EMAIL, Checker, normal_email

# The path's word for "the caller's own": a customer's userId.
ME = "me"
# What a request asked for (the record's `tipo`): Ley 21.719's rights.
ACCESS, PORTABILITY, RECTIFICATION, ERASURE = (
    "ACCESO",
    "PORTABILIDAD",
    "RECTIFICACION",
    "SUPRESION",
)
# What a customer types to erase their own account: deliberate, never a stray click.
CONFIRMATION = "ELIMINAR_MI_CUENTA"
# An order in one of these, or a shipment not yet delivered, is in flight: its person's
# data is still needed to deliver it, and an erasure waits for it.
ORDERS_IN_FLIGHT = ("PENDIENTE", "APROBADO", "EN_ENVIO")
SHIPMENT_DONE = "ENTREGADO"
# What an erasure answers, once accepted: the account is cancelled.
CANCELLED = "CANCELADA"
# An account's state as `cuenta` shows it.
ACTIVE, DISABLED = "ACTIVA", "DESACTIVADA"
MAX_PASSWORD = 256  # Cognito's


@dataclass(frozen=True, kw_only=True)
class Account:
    """A person's account in the user pool, as `cuenta` shows it."""

    user_id: int
    email: str
    nombre: str | None
    rol: str
    estado: str
    creado_en: str


@dataclass(frozen=True, kw_only=True)
class DataRequest:
    """One rights request as the record keeps it: whose, what, by whom, when, and the
    status it was answered with; an erasure's also when it was done."""

    id: int
    user_id: int
    tipo: str
    origen: str  # the role of who asked: the person (customer) or an operator
    fecha: str
    resultado: int
    completada_en: str | None = None


def target_of(caller: Caller, user_id: int | None) -> int:
    """Whose data a request is about: None (the path's `me`), the customer's own; a
    userId, anyone's for an operator (with an account or not), a customer's own only
    (403 for anyone else's). A number no userId can be is no one's (404)."""
    if user_id is None:
        if caller.user_id is None:
            raise Forbidden("Only a customer has data of their own here: name a userId")
        return caller.user_id
    if not caller.owns(user_id):
        raise Forbidden("A customer may see and take only their own data")
    if not possible_id(user_id):
        raise NotFound("USER_NOT_FOUND", f"userId {str(user_id)[:20]} is no one's")
    return user_id


def unknown_account(user_id: int) -> NotFound:
    return NotFound("ACCOUNT_NOT_FOUND", f"userId {user_id} has no account")


def parse_name(body: dict) -> str:
    check = Checker(body)
    nombre = check.text("nombre")
    check.done()
    return str(nombre).strip()


def _password(check: Checker) -> str | None:
    return check.text("password", max_length=MAX_PASSWORD)


def parse_email_change(body: dict) -> tuple[str, str]:
    """The new email (normalised as every email is: docs/api.md#signing-in) and the
    password that proves the account is the caller's."""
    check = Checker(body)
    raw, password = check.text("email", max_length=MAX_EMAIL * 2), _password(check)
    email = normal_email(raw) if raw is not None else None
    if email is not None and (len(email) > MAX_EMAIL or not EMAIL.fullmatch(email)):
        check.fail("email", "must be an email address like name@example.com")
    check.done()
    assert email is not None and password is not None
    return email, password


def parse_own_erasure(body: dict) -> str:
    """The password of a customer erasing their own account, once they typed the
    confirmation exactly."""
    check = Checker(body)
    if body.get("confirmacion") != CONFIRMATION:
        check.fail("confirmacion", f"must be {CONFIRMATION}, exactly")
    password = _password(check)
    check.done()
    assert password is not None
    return password


def parse_erasure_by_operator(body: dict) -> str:
    """Why an operator erases someone (the request that came by mail or phone): checked,
    never kept, since it may name the person (the record keeps the request's id)."""
    check = Checker(body)
    motivo = check.text("motivo")
    check.done()
    return str(motivo)


def in_flight(
    orders: list[Order], shipments: list[Shipment], returns: list | None = None
) -> list[dict]:
    """What keeps an erasure waiting, named: the orders not yet final, the shipments not
    yet delivered, the returns still open (docs/api.md#returns)."""
    return [
        *(
            {"field": "pedidos", "message": f"order {order.id} is {order.status}", "id": order.id}
            for order in orders
            if order.status in ORDERS_IN_FLIGHT
        ),
        *(
            {
                "field": "envios",
                "message": f"shipment {shipment.id} is {shipment.status}",
                "id": shipment.id,
            }
            for shipment in shipments
            if shipment.status != SHIPMENT_DONE
        ),
        *(
            {"field": "devoluciones", "message": f"return {ret.id} is {ret.estado}", "id": ret.id}
            for ret in returns or []
        ),
    ]


def open_orders(details: list[dict]) -> Conflict:
    shown = ", ".join(detail["message"] for detail in details[:10])
    more = f" and {len(details) - 10} more" if len(details) > 10 else ""
    return Conflict(
        "OPEN_ORDERS",
        f"Orders or shipments are in flight ({shown}{more}): nothing was erased; ask again "
        "once they are delivered or cancelled",
        details=details,
    )
