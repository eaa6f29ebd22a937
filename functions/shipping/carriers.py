"""Carriers' rules as plain functions (docs/api.md#carriers): what a new carrier is, its
secret, which shipments are its own, and whether an event it pushed is signed by it.

A carrier signs each event as Standard Webhooks specifies, with the secret it was given
once; the check is the specification's own library (standardwebhooks), whose tolerance
for the `webhook-timestamp` is 5 minutes either way. Anything it refuses (a missing or
bad header, an old timestamp, a signature of another secret) is 401, as an unknown
carrier is: the intake tells a caller without the secret nothing.
"""

import base64
import re
import secrets
from dataclasses import dataclass

from standardwebhooks import Webhook, WebhookVerificationError

from common.orders.records import Shipment
from common.platform.errors import Conflict, DomainError, Unauthenticated
from common.platform.validation import Checker

# A carrier's code, as a warehouse's: 1-32 characters of A-Z, 0-9 and `-`.
CODE = re.compile(r"[A-Z0-9-]{1,32}")
MAX_NOMBRE = 100
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 24
# The headers a signed event carries (Standard Webhooks), read case-insensitively.
SIGNATURE_HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")


@dataclass(frozen=True, kw_only=True)
class NewCarrier:
    codigo: str
    nombre: str


@dataclass(frozen=True, kw_only=True)
class Carrier(NewCarrier):
    """A carrier as shown: its secret only in the answer that issues it."""

    id: int
    creado_en: str
    secreto: str | None = None


def parse_carrier(body: dict) -> NewCarrier:
    check = Checker(body)
    codigo = check.text("codigo", max_length=32)
    if codigo is not None and not CODE.fullmatch(codigo):
        check.fail("codigo", "must be 1-32 characters of A-Z, 0-9 and -")
    nombre = check.text("nombre", max_length=MAX_NOMBRE)
    check.done()
    return NewCarrier(codigo=codigo, nombre=nombre.strip())


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def duplicate_code(codigo: str) -> Conflict:
    return Conflict(
        "DUPLICATE_CODE",
        f"A carrier with codigo {codigo} already exists",
        details=[{"field": "codigo", "message": "is taken"}],
    )


def unsigned() -> DomainError:
    """A request the intake does not take as a carrier's: one answer, whatever the cause."""
    return Unauthenticated(
        "INVALID_SIGNATURE",
        "The event is not signed by this carrier (Standard Webhooks: webhook-id, "
        "webhook-timestamp within 5 minutes, webhook-signature)",
        details=[],
    )


def verified(secret: str, body: bytes, headers: dict[str, str]) -> str:
    """The event's webhook-id once its signature is the carrier's (the library checks the
    headers, the timestamp and the signature); else 401."""
    try:
        Webhook(secret).verify(body, headers, json_parse=False)
    except (WebhookVerificationError, ValueError):  # ValueError: a malformed header
        raise unsigned() from None
    return headers["webhook-id"]


def carries(carrier: Carrier, shipment: Shipment) -> bool:
    """Whether the shipment is the carrier's own: its `transportista` is the carrier's
    code or name, whatever the case."""
    named = (shipment.transportista or "").strip().casefold()
    return bool(named) and named in (carrier.codigo.casefold(), carrier.nombre.casefold())
