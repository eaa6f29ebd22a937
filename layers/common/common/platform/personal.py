"""Personal data (docs/personal-data.md): which fields of what the platform keeps are a
person's, declared once here, and what follows from that one list.

The exporter shows them, the eraser removes them from every copy (an order, a shipment,
an event still to be delivered; a create remembered for its Idempotency-Key keeps none), the event
renderer leaves them out of what it sends for a person who was erased, and the logger
never writes them (common.platform.logs). Each model that stores one of these kinds holds its
fields as nullable attributes (tests/unit/test_personal.py holds the models to this
list), so a new field is declared here or not stored.

Everything else an order or a shipment holds is a fact of the business (its id, userId,
product, quantity, total, types, statuses, dates, guide, carrier and history): kept.
"""

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

import simplejson

from common.platform import jsonio

REDACTED = "[redacted]"


def api_name(field: str) -> str:
    """A domain field's name as the API shows it (user_email -> userEmail)."""
    first, *rest = field.split("_")
    return first + "".join(word.capitalize() for word in rest)


@dataclass(frozen=True)
class Kind:
    """Something the platform keeps about a person: the names its events carry
    (`pedido` for `pedido.creado`), and which of its fields are the person's."""

    name: str
    fields: tuple[str, ...]  # the domain's names (snake_case)
    # Objects it shows inside itself that hold another kind's fields (a shipment's
    # `incidencia`, an event's `evento`): (the name shown, that kind).
    within: tuple[tuple[str, "Kind"], ...] = ()

    @property
    def shown(self) -> tuple[str, ...]:
        """The same fields as the API and the events name them."""
        return tuple(api_name(field) for field in self.fields)

    def stripped(self, value: Any) -> Any:
        """A domain object (a dataclass) with its personal fields removed (None)."""
        return dataclasses.replace(value, **dict.fromkeys(self.fields))

    def stripped_json(self, shown: dict) -> dict:
        """An object as the API shows it, its personal fields null (those of the objects it
        holds too)."""
        inner = {
            name: kind.stripped_json(shown[name])
            for name, kind in self.within
            if isinstance(shown.get(name), dict)
        }
        return {**shown, **{name: None for name in self.shown if name in shown}, **inner}

    def holds_some(self, value: Any) -> bool:
        """Whether a domain object still holds any of its personal fields."""
        return any(getattr(value, field) is not None for field in self.fields)


ORDER = Kind("pedido", ("user_email", "cliente_nombre", "destino", "observaciones"))
# A tracking event: the free text a carrier or an operator wrote about the delivery (a
# neighbour's name, a door code). A shipment's incident is shown with the same field.
TRACKING_EVENT = Kind("evento", ("detalle",))
# The route text names the address (`Ruta terrestre — {destino}`); the newest incident's
# words are kept flat (`incidenciaDetalle`, shown as `incidencia.detalle`), and the last
# event as the webhooks send it (`ultimoEvento`, never shown) holds its detalle too.
SHIPMENT = Kind(
    "envio",
    ("destino", "ruta_descripcion", "incidencia_detalle", "ultimo_evento"),
    within=(("incidencia", TRACKING_EVENT), ("evento", TRACKING_EVENT)),
)
# The account in the user pool: its sign-in email and its name.
ACCOUNT = Kind("cuenta", ("email", "nombre"))
# A return's comment: the customer's own words about what came back (docs/api.md#returns).
RETURN = Kind("devolucion", ("comentario",))
KINDS = (ORDER, SHIPMENT, ACCOUNT, TRACKING_EVENT, RETURN)
# An accepted erasure's request, once every copy is erased (users.rules), and the event
# that tells the integrators so, its data the userId alone (docs/api.md#webhooks).
ERASURE_DONE = "COMPLETADA"
USER_ERASED = "usuario.eliminado"
# Every name a log line never writes, wherever it is in the line.
NEVER_LOGGED = frozenset(name for kind in KINDS for name in kind.shown)


def stripped_event(body: str) -> str:
    """A webhook event's body (`{"type", "timestamp", "data"}`, docs/api.md#webhooks) with
    the personal fields of its `data` null; the body as it is for an event of any other
    kind (a product, `usuario.eliminado`) or one that is not an event."""
    try:
        event = jsonio.loads(body, max_depth=None)
        kind = next(k for k in KINDS if str(event["type"]).startswith(f"{k.name}."))
        data = event["data"]
        if not isinstance(data, dict):
            return body
    except (jsonio.InvalidJson, KeyError, TypeError, StopIteration):
        return body
    return jsonio.dumps({**event, "data": kind.stripped_json(data)}, ascii_only=False)


def event_subject(body: str) -> int | None:
    """Whom a webhook event is about, read off its body: an order's userId (a shipment's
    event does not name it). For a delivery queued before messages named their person."""
    try:
        event = jsonio.loads(body, max_depth=None)
        user_id = event["data"]["userId"] if str(event["type"]).startswith("pedido.") else None
    except (jsonio.InvalidJson, KeyError, TypeError):
        return None
    return user_id if isinstance(user_id, int) and not isinstance(user_id, bool) else None


# -- what a log line may hold -----------------------------------------------------------

# A field written as JSON inside a string (a payload logged as text: cut, or too deep to
# log as JSON): its name, and its value (a string, a number or a literal). The name is
# compared decoded: "user\\u0045mail" is userEmail, as any JSON reader takes it.
_IN_TEXT = re.compile(
    r'("(?:[^"\\]|\\.)*")(\s*:\s*)'
    r'("(?:[^"\\]|\\.)*"?|-?[0-9][0-9.eE+-]*|true|false|null)'
)


def redacted(value: Any) -> Any:
    """A log line's fields with every personal field's value replaced by REDACTED, at any
    depth: in objects, in JSON kept as text (common.platform.jsonio.raw), in JSON inside a string.
    Names are compared exactly, as the API writes them, once decoded (a JSON escape in a
    name written as text is the name it escapes)."""
    if isinstance(value, dict):
        return {
            key: REDACTED if key in NEVER_LOGGED else redacted(item) for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [redacted(item) for item in value]
    if isinstance(value, simplejson.RawJSON):
        return jsonio.raw(_redacted_text(value.encoded_json))
    if isinstance(value, str) and '"' in value:
        return _redacted_text(value)
    return value


def _redacted_text(text: str) -> str:
    return _IN_TEXT.sub(_redacted_field, text)


def _redacted_field(match: re.Match) -> str:
    try:
        name = simplejson.loads(match[1])
    except ValueError:
        return match[0]
    return f'{match[1]}{match[2]}"{REDACTED}"' if name in NEVER_LOGGED else match[0]
