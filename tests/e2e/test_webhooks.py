"""Black-box: webhooks on the real local stack (docs/api.md#webhooks), with receivers the
tests run on 127.0.0.1 and the retry schedule shortened to a second a step.

Every delivery is checked the way an integrator checks it (tests/support/webhook_receiver.py,
written apart from the platform's signing)."""

import json
import time

import boto3
import pytest

from tests.support.stack_client import token
from tests.support.stack_process import PATIENT_STOCK_CHECK, StackClient, StackProcess
from tests.support.webhook_receiver import HANG, REDIRECT, RESET, Receiver, verified

EVERYTHING = [
    "pedido.creado",
    "pedido.estado",
    "envio.creado",
    "envio.estado",
    "inventario.stock_bajo",
]
ORDER = {
    "userId": 7,
    "userEmail": "eva@example.com",
    "clienteNombre": "Eva",
    "total": 19.99,
    "tipoPedido": "NACIONAL",
    "destino": "Cusco",
    "cantidad": 1,
}


@pytest.fixture(scope="module")
def stack():
    # The late check (every minute on AWS) every 2 s: a shipment made late is seen soon.
    running = StackProcess(
        {**PATIENT_STOCK_CHECK, "WEBHOOK_RETRY_SECONDS": "1,1,1,1,1", "LOCAL_SCHEDULE_SECONDS": "2"}
    ).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def http(stack):
    return StackClient(stack, token())


class Hooks:
    """Receivers and their endpoints for one test; all gone when it ends."""

    def __init__(self, http: StackClient):
        self.http = http
        self.receivers: list[Receiver] = []
        self.ids: list[int] = []

    def endpoint(self, receiver: Receiver, eventos=EVERYTHING) -> dict:
        self.receivers.append(receiver)
        # An endpoint gets the events of changes from the second it was created on
        # (docs/api.md): a second apart from an earlier test's last write, none of its.
        time.sleep(1.0)
        answer = self.http.gateway(
            "POST", "/api/webhooks", json={"url": receiver.url, "eventos": eventos}
        )
        assert answer.status_code == 201, answer.text
        made = answer.json()
        self.ids.append(made["id"])
        return made

    def close(self) -> None:
        for ident in self.ids:
            self.http.gateway("DELETE", f"/api/webhooks/{ident}")
        for receiver in self.receivers:
            receiver.stop()


@pytest.fixture
def hooks(http):
    made = Hooks(http)
    yield made
    made.close()


def product(http, sku: str, stock: int = 50, threshold: int = 5) -> dict:
    answer = http.gateway(
        "POST",
        "/api/inventario",
        json={
            "sku": sku,
            "nombre": "Caja",
            "precioUnitario": 3.5,
            "stockActual": stock,
            "umbralMinimo": threshold,
        },
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def place_order(http, product_id: int) -> dict:
    answer = http.gateway("POST", "/api/pedidos", json={**ORDER, "productoId": product_id})
    assert answer.status_code == 201, answer.text
    return answer.json()


def attempts(http, webhook_id: int, query: str = "") -> list[dict]:
    answer = http.gateway("GET", f"/api/webhooks/{webhook_id}/entregas{query}")
    assert answer.status_code == 200, answer.text
    return answer.json()


def recorded(http, webhook_id: int, count: int, timeout: float = 30.0) -> list[dict]:
    """The endpoint's attempts once `count` are listed: each is written just after its
    POST has been answered, so a receiver can hold a delivery before its record exists."""
    deadline = time.monotonic() + timeout
    while len(listed := attempts(http, webhook_id)) < count:
        assert time.monotonic() < deadline, listed
        time.sleep(0.2)
    return listed


def test_an_order_placed_is_delivered_signed_and_verifiable(http, hooks):
    receiver = Receiver()
    made = hooks.endpoint(receiver, ["pedido.creado"])
    order = place_order(http, product(http, "WH-1")["id"])
    (delivery,) = receiver.wait_for(1)
    assert verified(made["secreto"], delivery)
    assert delivery.headers["content-type"] == "application/json"
    assert delivery.id.startswith("evt_")
    event = delivery.event
    assert set(event) == {"type", "timestamp", "data"}
    assert event["type"] == "pedido.creado"
    assert event["data"] == http.gateway("GET", f"/api/pedidos/{order['id']}").json()
    (attempt,) = recorded(http, made["id"], 1)
    assert (attempt["eventId"], attempt["type"], attempt["statusCode"]) == (
        delivery.id,
        "pedido.creado",
        200,
    )
    assert not verified("whsec_" + "A" * 44, delivery)


def test_status_changes_carry_the_status_before_and_a_refused_move_makes_no_event(http, hooks):
    receiver = Receiver()
    hooks.endpoint(receiver, ["pedido.estado"])
    order = place_order(http, product(http, "WH-2")["id"])
    path = f"/api/pedidos/{order['id']}/status"
    assert http.gateway("PATCH", path + "?status=APROBADO").status_code == 200
    assert http.gateway("PATCH", path + "?status=ENTREGADO").status_code == 409  # refused
    assert http.gateway("PATCH", path + "?status=APROBADO").status_code == 200  # no change
    assert http.gateway("PATCH", path + "?status=EN_ENVIO").status_code == 200
    deliveries = receiver.wait_for(2)
    time.sleep(3)  # anything else would have come by now
    moves = [(d.event["data"]["statusAnterior"], d.event["data"]["status"]) for d in deliveries]
    assert sorted(moves) == [("APROBADO", "EN_ENVIO"), ("PENDIENTE", "APROBADO")]
    assert len(receiver.received) == 2


def test_a_shipment_created_and_moved_makes_its_events(http, hooks):
    receiver = Receiver()
    hooks.endpoint(receiver, ["envio.creado", "envio.estado"])
    order = place_order(http, product(http, "WH-3")["id"])
    shipment = http.gateway(
        "POST",
        "/api/envios",
        json={
            "pedidoId": order["id"],
            "tipoEnvio": "EXPRESS",
            "transportista": "Olva",
            "destino": "Cusco",
        },
    ).json()
    moved = http.gateway("PATCH", f"/api/envios/{shipment['id']}/status?status=EN_RUTA").json()
    (created,) = receiver.wait_for(1, of_type="envio.creado")
    (changed,) = receiver.wait_for(1, of_type="envio.estado")
    assert created.event["data"] == shipment
    assert changed.event["data"] == {**moved, "statusAnterior": "CREADO"}


def test_a_carriers_signed_event_and_a_passed_estimate_make_their_events(http, hooks, stack):
    """A carrier pushes an event, signed, with no token (docs/api.md#carriers): it moves
    the shipment and is delivered as `envio.evento`; anyone follows the parcel by its code
    without a token; once its estimate has passed, the late check's `envio.atrasado`."""
    from tests.support.carriers import signed as carrier_headers

    receiver = Receiver()
    hooks.endpoint(receiver, ["envio.estado", "envio.evento", "envio.atrasado"])
    carrier = http.gateway(
        "POST", "/api/transportistas", json={"codigo": "E2E-OLVA", "nombre": "Olva E2E"}
    )
    assert carrier.status_code == 201, carrier.text
    secret = carrier.json()["secreto"]
    order = place_order(http, product(http, "WH-TRK")["id"])
    shipment = http.gateway(
        "POST",
        "/api/envios",
        json={
            "pedidoId": order["id"],
            "tipoEnvio": "EXPRESS",
            "transportista": "olva e2e",
            "destino": "Cusco",
        },
    ).json()
    raw = json.dumps(
        {
            "codigoSeguimiento": shipment["codigoSeguimiento"],
            "estado": "EN_RUTA",
            "ubicacion": "Lima",
            "detalle": "Salió del almacén",
        }
    ).encode()
    signed = {**carrier_headers(secret, raw, "msg_e2e_1"), "Content-Type": "application/json"}
    pushed = http.gateway(
        "POST", "/api/transportistas/E2E-OLVA/eventos", auth=False, data=raw, headers=signed
    )
    assert pushed.status_code == 202, pushed.text
    unsigned = http.gateway("POST", "/api/transportistas/E2E-OLVA/eventos", auth=False, data=raw)
    assert unsigned.status_code == 401
    (evento,) = receiver.wait_for(1, of_type="envio.evento")
    data = evento.event["data"]
    assert (data["id"], data["estadoSeguimiento"], data["status"]) == (
        shipment["id"],
        "EN_RUTA",
        "EN_RUTA",
    )
    assert (
        data["evento"]["idExterno"] == "msg_e2e_1" and data["evento"]["id"] == pushed.json()["id"]
    )
    (moved,) = receiver.wait_for(1, of_type="envio.estado")
    assert moved.event["data"]["statusAnterior"] == "CREADO"
    public = http.gateway("GET", f"/api/seguimiento/{shipment['codigoSeguimiento']}", auth=False)
    assert public.status_code == 200, public.text
    assert public.json()["eventos"] == [
        {"estado": "EN_RUTA", "fecha": data["evento"]["fecha"], "ubicacion": "Lima"}
    ]
    # Its estimate moved into the past, as time would: the late check sees it by itself.
    dynamodb = boto3.client("dynamodb", endpoint_url=stack.dynamodb, region_name="us-east-1")
    dynamodb.update_item(
        TableName="ShipmentsTable",
        Key={"id": {"N": str(shipment["id"])}},
        UpdateExpression="SET fechaEstimadaEntrega = :past",
        ExpressionAttributeValues={":past": {"S": "2026-01-01T00:00:00.000000"}},
    )
    (late,) = receiver.wait_for(1, timeout=60, of_type="envio.atrasado")
    assert (late.event["data"]["id"], late.event["data"]["atrasado"]) == (shipment["id"], True)


def test_stock_crossing_the_threshold_alerts_once_and_a_put_that_does_not_cross_never(http, hooks):
    receiver = Receiver()
    made = hooks.endpoint(receiver, ["inventario.stock_bajo"])
    item = product(http, "WH-4", stock=10, threshold=5)
    fields = {key: item[key] for key in ("sku", "nombre", "precioUnitario", "umbralMinimo")}
    path = f"/api/inventario/{item['id']}"
    assert http.gateway("PUT", path, json={**fields, "stockActual": 6}).status_code == 200
    assert http.gateway("PUT", path, json={**fields, "stockActual": 4}).status_code == 200
    assert http.gateway("PUT", path, json={**fields, "stockActual": 3}).status_code == 200
    (delivery,) = receiver.wait_for(1)
    time.sleep(3)
    assert len(receiver.received) == 1
    assert delivery.event["data"]["stockActual"] == 4
    assert verified(made["secreto"], delivery)


def test_a_failed_delivery_is_retried_with_the_same_id(http, hooks):
    receiver = Receiver(500, RESET)
    made = hooks.endpoint(receiver, ["pedido.creado"])
    place_order(http, product(http, "WH-5")["id"])
    first, second, third = receiver.wait_for(3)
    assert first.id == second.id == third.id
    assert first.body == third.body
    assert all(verified(made["secreto"], d) for d in (first, second, third))
    tried = recorded(http, made["id"], 3)
    assert [(a["intento"], a["statusCode"], a["estado"]) for a in tried] == [
        (3, 200, "ENTREGADO"),
        (2, None, "REINTENTO"),
        (1, 500, "REINTENTO"),
    ]
    assert tried[1]["error"] == "connection reset"
    # Each failed one says when the next was due: after it, a step of the schedule (1 s).
    for failed, then in ((tried[2], tried[1]), (tried[1], tried[0])):
        assert failed["timestamp"] < failed["siguienteIntento"] <= then["timestamp"]
    assert tried[0]["siguienteIntento"] is None


def test_410_turns_the_endpoint_off_for_good(http, hooks):
    receiver = Receiver(410)
    made = hooks.endpoint(receiver, ["pedido.creado"])
    item = product(http, "WH-6")
    place_order(http, item["id"])
    receiver.wait_for(1)
    deadline = time.monotonic() + 10
    while http.gateway("GET", f"/api/webhooks/{made['id']}").json()["activo"]:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    place_order(http, item["id"])
    time.sleep(4)
    assert len(receiver.received) == 1


def test_after_rotations_deliveries_carry_a_signature_per_secret_of_the_last_24_hours(http, hooks):
    receiver = Receiver()
    made = hooks.endpoint(receiver, ["pedido.creado"])
    issued = [made["secreto"]]
    for _ in range(2):  # twice within the day: each secret issued still verifies
        rotated = http.gateway("POST", f"/api/webhooks/{made['id']}/secreto")
        assert rotated.status_code == 200
        issued.append(rotated.json()["secreto"])
    assert len(set(issued)) == 3 and all(s.startswith("whsec_") for s in issued)
    place_order(http, product(http, "WH-7")["id"])
    (delivery,) = receiver.wait_for(1)
    assert len(delivery.signatures) == 3
    assert all(verified(secret, delivery) for secret in issued)


@pytest.mark.parametrize("misbehaviour", [HANG, RESET, REDIRECT, 500])
def test_a_receiver_that_misbehaves_never_slows_or_fails_the_order(http, hooks, misbehaviour):
    """Every order answered 201 while its receiver misbehaves; and none waited for its
    event's delivery: each was answered before the sender gave up on that delivery (a
    hang holds it until the sender's timeout), where an order that delivered its own
    event would be answered only after. Judged by that order of events, not by seconds:
    how much an endpoint adds to an order is bench-webhooks' measure."""
    item = product(http, f"WH-8-{misbehaviour}", stock=1000)
    receiver = Receiver(then=misbehaviour)
    hooks.endpoint(receiver, ["pedido.creado"])
    given_up_before = {}  # each order's id: the orders whose delivery had ended by its answer
    for _ in range(5):
        placed = place_order(http, item["id"])
        given_up_before[placed["id"]] = {delivered_order(receiver, i) for i in receiver.given_up}
    receiver.wait_for(1)  # its deliveries are under way, and failing
    assert all(order not in ended for order, ended in given_up_before.items()), given_up_before


def delivered_order(receiver: Receiver, webhook_id: str) -> int:
    """The order whose event the delivery `webhook_id` carried."""
    return next(d.event["data"]["id"] for d in receiver.received if d.id == webhook_id)


def test_the_attempts_are_newest_first_in_pages(http, hooks):
    receiver = Receiver()
    made = hooks.endpoint(receiver, ["pedido.creado"])
    item = product(http, "WH-9")
    for _ in range(3):
        place_order(http, item["id"])
    receiver.wait_for(3)
    whole = recorded(http, made["id"], 3)
    assert len(whole) == 3
    assert [a["timestamp"] for a in whole] == sorted((a["timestamp"] for a in whole), reverse=True)
    page = http.gateway("GET", f"/api/webhooks/{made['id']}/entregas?limit=2")
    assert [a["eventId"] for a in page.json()] == [a["eventId"] for a in whole[:2]]
    rest = attempts(http, made["id"], f"?limit=2&nextToken={page.headers['X-Next-Token']}")
    assert [a["eventId"] for a in rest] == [whole[2]["eventId"]]


def dead_letters(stack) -> int:
    sqs = boto3.client("sqs", endpoint_url=stack.dynamodb, region_name="us-east-1")
    url = sqs.get_queue_url(QueueName="WebhookDeliveryDeadLetterQueue")["QueueUrl"]
    attributes = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"]
    )
    return int(attributes["Attributes"]["ApproximateNumberOfMessages"])


def test_a_dead_event_is_a_dead_letter_and_is_sent_again_on_request(http, hooks, stack):
    receiver = Receiver(*[503] * 6)
    made = hooks.endpoint(receiver, ["pedido.creado"])
    before = dead_letters(stack)
    place_order(http, product(http, "WH-10")["id"])
    tries = receiver.wait_for(6, timeout=60)
    event_id = tries[0].id
    deadline = time.monotonic() + 20
    while dead_letters(stack) == before:
        assert time.monotonic() < deadline, "no dead letter"
        time.sleep(0.5)
    assert attempts(http, made["id"])[0]["estado"] == "FALLIDO"
    resent = http.gateway("POST", f"/api/webhooks/{made['id']}/entregas/{event_id}/reenviar")
    assert resent.status_code == 202, resent.text
    seventh = receiver.wait_for(7)[6]
    assert (seventh.id, seventh.body) == (event_id, tries[0].body)
    # Delivered now: sent again once more on request, still the same event.
    time.sleep(1.5)
    again = http.gateway("POST", f"/api/webhooks/{made['id']}/entregas/{event_id}/reenviar")
    assert again.status_code == 202, again.text
    assert receiver.wait_for(8)[7].id == event_id


def test_bad_endpoints_are_400_and_customers_are_403(http):
    for bad in (
        {"url": "http://127.0.0.1:9/x", "eventos": ["pedido.enviado"]},
        {"url": "http://127.0.0.1:9/x", "eventos": []},
        {"url": "gopher://127.0.0.1/x", "eventos": ["pedido.creado"]},
        {"url": "http://169.254.169.254/", "eventos": ["pedido.creado"]},
        {"url": "http://10.0.0.1/", "eventos": ["pedido.creado"]},
    ):
        answer = http.gateway("POST", "/api/webhooks", json=bad)
        assert answer.status_code == 400, bad
        assert answer.json()["error"] == "VALIDATION_ERROR"
    customer = StackClient(http.stack, token("ROLE=customer", "USER_ID=5"))
    for method, path in (("GET", "/api/webhooks"), ("POST", "/api/webhooks")):
        answer = customer.gateway(method, path, json={"url": "http://127.0.0.1:9", "eventos": []})
        assert answer.status_code == 403
        assert answer.json()["error"] == "FORBIDDEN"


def test_make_webhook_receiver_prints_what_it_receives_with_its_signature_checked(http, hooks):
    import socket
    import subprocess
    import threading

    from tests.support import processes
    from tests.support.stack_process import ROOT

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    answer = http.gateway(
        "POST",
        "/api/webhooks",
        json={"url": f"http://127.0.0.1:{port}/", "eventos": ["pedido.creado"]},
    )
    assert answer.status_code == 201, answer.text
    hooks.ids.append(answer.json()["id"])
    receiver = processes.start(
        ["make", "-s", "webhook-receiver", f"PORT={port}", f"SECRET={answer.json()['secreto']}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    printed: list[str] = []
    threading.Thread(target=lambda: printed.extend(receiver.stdout), daemon=True).start()
    try:
        deadline = time.monotonic() + 30
        while not any("Receiving webhooks on" in line for line in printed):
            assert time.monotonic() < deadline, printed
            time.sleep(0.1)
        order = place_order(http, product(http, "WH-11")["id"])
        while not any("signature: valid" in line for line in printed):
            assert time.monotonic() < deadline, printed
            time.sleep(0.1)
        (line,) = [line for line in printed if "signature: valid" in line]
        assert "pedido.creado" in line and "answered 200" in line
        assert f'"id": {order["id"]}' in "".join(printed)
    finally:
        processes.stop(receiver)


def test_an_event_waiting_for_its_endpoint_when_its_person_is_erased_arrives_without_their_data(
    http, hooks
):
    """docs/personal-data.md: an order's change queued while its endpoint was down, its
    person erased meanwhile (by an operator: they have no account), then the endpoint
    back: it gets the change without their data, a re-send too; and it is told whose
    data to erase (usuario.eliminado)."""
    receiver = Receiver(then=500)
    made = hooks.endpoint(receiver, ["pedido.estado", "usuario.eliminado"])
    user_id = 600_000 + int(time.time() * 1000) % 99_999
    order = http.gateway(
        "POST",
        "/api/pedidos",
        json={**ORDER, "userId": user_id, "productoId": product(http, "WH-ERASED")["id"]},
    ).json()
    cancelled = http.gateway("PATCH", f"/api/pedidos/{order['id']}/status?status=CANCELADO")
    assert cancelled.status_code == 200, cancelled.text
    (refused,) = receiver.wait_for(1, of_type="pedido.estado")
    assert refused.event["data"]["userEmail"] == ORDER["userEmail"]
    erased = http.gateway(
        "POST", f"/api/usuarios/{user_id}/cancelacion", json={"motivo": "pedido por teléfono"}
    )
    assert erased.status_code == 200, erased.text
    receiver.answer_from_now(200)
    (told,) = receiver.wait_for(1, of_type="usuario.eliminado")
    assert told.event["data"] == {"userId": user_id} and verified(made["secreto"], told)
    delivered = receiver.wait_for(2, of_type="pedido.estado")[-1]
    assert delivered.id == refused.id and verified(made["secreto"], delivered)
    data = delivered.event["data"]
    assert (data["id"], data["userId"], data["status"]) == (order["id"], user_id, "CANCELADO")
    assert data["userEmail"] is data["clienteNombre"] is data["destino"] is None
    recorded(http, made["id"], 3)
    again = http.gateway("POST", f"/api/webhooks/{made['id']}/entregas/{refused.id}/reenviar")
    assert again.status_code == 202, again.text
    resent = receiver.wait_for(3, of_type="pedido.estado")[-1]
    assert resent.event["data"]["userEmail"] is None
