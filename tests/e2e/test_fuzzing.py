"""schemathesis against the local stack: every operation of docs/openapi.yaml, both APIs.

Requests are generated from the document (its examples, the boundaries of every schema,
then random valid and invalid inputs), sent over HTTP to stacks of this module's own
on free ports, and every answer is held to the document: its status is one documented
for the operation, its Content-Type, headers and body are the documented ones, and no
5xx comes back but the one the document promises (503 of POST /api/pedidos). Seeded and
without shrinking, so a run is the same every time and bounded in time.
"""

import uuid

import pytest
import requests
from hypothesis import HealthCheck, settings

from tests.support.described import CHECKS, is_notification, load
from tests.support.samples import ANA_ORDER
from tests.support.stack_process import StackProcess

SEED = 12
# Per operation, in the test loop (its documented examples and its schemas' edges come
# before random inputs); the deep pass is `make bench-fuzz` (bench/fuzz.py): 20,000
# requests to a stack holding 3,000 orders, with and without an Idempotency-Key.
EXAMPLES_PER_OPERATION = 12
schema = load(
    {
        "seed": SEED,
        "generation": {"max-examples": EXAMPLES_PER_OPERATION, "mode": "all", "no-shrink": True},
        # Each operation on its own; sequences of calls are for another day.
        "phases": {"stateful": {"enabled": False}},
    }
)


PRODUCT = {"nombre": "Caja", "precioUnitario": 1, "stockActual": 10**9, "umbralMinimo": 0}
ORDER = {**ANA_ORDER, "userId": 1}
SHIPMENT = {"pedidoId": 1, "tipoEnvio": "EXPRESS", "transportista": "Olva", "destino": "Lima"}


def seeded_stack() -> tuple[StackProcess, requests.Session]:
    """A stack of its own on free ports (what fuzzing writes reaches no other test), with
    a little of everything, so that success answers are fuzzed too: products 1-3
    (plenty in stock, so the document's example order can be placed), orders 1-3
    (PENDIENTE, APROBADO, CANCELADO) and shipments 1-2."""
    stack = StackProcess().start()
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {stack.token}"

    def send(method: str, path: str, **kw) -> None:
        answer = session.request(method, stack.gateway + path, timeout=30, **kw)
        assert answer.status_code in (200, 201), answer.text

    for n in (1, 2, 3):
        send("POST", "/api/inventario", json={**PRODUCT, "sku": f"FUZZ-{n}"})
        send("POST", "/api/pedidos", json=ORDER)
    send("PATCH", "/api/pedidos/2/status", params={"status": "APROBADO"})
    send("PATCH", "/api/pedidos/3/status", params={"status": "CANCELADO"})
    for _ in (1, 2):
        send("POST", "/api/envios", json=SHIPMENT)
    del session.headers["Authorization"]  # each case says whether it sends a token
    return stack, session


@pytest.fixture(scope="module")
def stacks():
    """Two seeded stacks: the inventory's operations fuzz one, the rest the other, so that
    deleting products cannot take away the stock the orders are placed against."""
    started = []
    try:
        for _ in ("inventory", "the rest"):
            started.append(seeded_stack())
        yield started
    finally:
        for stack, session in started:
            session.close()
            stack.stop()


@schema.parametrize()
@settings(database=None, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_answer_is_the_documented_one(case, stacks):
    inventory, rest = stacks
    stack, session = inventory if case.operation.path.startswith("/api/inventario") else rest
    if is_notification(case.operation.path):
        case.call_and_validate(
            base_url=stack.notifications, session=session, checks=CHECKS, timeout=30
        )
    else:
        case.call_and_validate(
            base_url=stack.gateway,
            session=session,
            checks=CHECKS,
            headers={"Authorization": f"Bearer {stack.token}"},
            timeout=30,
        )


creates = load(
    {
        "seed": SEED + 1,
        "generation": {"max-examples": EXAMPLES_PER_OPERATION, "mode": "all", "no-shrink": True},
        "phases": {"stateful": {"enabled": False}},
    }
).include(method="POST", path_regex=r"^/api/")


@creates.parametrize()
@settings(database=None, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_create_with_an_idempotency_key_is_answered_as_documented(case, stacks):
    """The same generated bodies, each with a key of its own: the key's path (the body
    checked, then fingerprinted, then claimed) is held to the same checks, no 5xx."""
    _, (stack, session) = stacks
    key = f"fuzz-{uuid.uuid4()}"
    case.call_and_validate(
        base_url=stack.gateway,
        session=session,
        checks=CHECKS,
        headers={"Authorization": f"Bearer {stack.token}", "Idempotency-Key": key},
        timeout=30,
    )
