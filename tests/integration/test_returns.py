"""Returns (docs/api.md#returns) through the gateway app against emulated DynamoDB: asked
for by the order's customer or an operator, never more than delivered, approved or
rejected, cancelled, received into warehouses once whatever the retries, and the
races that must leave exactly one winner."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from common.platform.settings import Tokens
from infra.dev.tokens import local_token
from tests.support.api import Api, body
from tests.support.samples import ORDER, PRODUCT
from tests.support.settings import built

CUSTOMER = {k: v for k, v in ORDER.items() if k not in ("cantidad", "total")}
ANA, LUIS = 7, 8


def customer(api: Api, user_id: int) -> Api:
    """Another client of the same app, with a customer's token."""
    other = Api(api.app)
    other.token = local_token(
        Tokens.from_env(), f"customer-{user_id}@example.com", "customer", user_id
    )
    return other


class Shop:
    def __init__(self, api: Api):
        self.api = api

    def warehouse(self, codigo: str) -> int:
        made = self.api.post("/api/bodegas", {"codigo": codigo, "nombre": codigo})
        assert made.status_code == 201, made.body
        return body(made)["id"]

    def product(self, sku: str, units: int = 20) -> dict:
        made = self.api.post("/api/inventario", {**PRODUCT, "sku": sku, "stockActual": units})
        assert made.status_code == 201, made.body
        return body(made)

    def delivered(self, lines: list[tuple[dict, int]], user_id: int = ANA) -> dict:
        """An order of these lines, moved to ENTREGADO by its PATCHes."""
        sent = [{"productoId": p["id"], "cantidad": n} for p, n in lines]
        placed = self.api.post("/api/pedidos", {**CUSTOMER, "userId": user_id, "lineas": sent})
        assert placed.status_code == 201, placed.body
        order = body(placed)
        for status in ("APROBADO", "EN_ENVIO", "ENTREGADO"):
            moved = self.api.patch(f"/api/pedidos/{order['id']}/status?status={status}")
            assert moved.status_code == 200, moved.body
        return body(moved)

    def ask(self, order: dict, lines: list[tuple[int, int]], api: Api | None = None, **fields):
        sent = {
            "lineas": [{"linea": linea, "cantidad": n} for linea, n in lines],
            "motivo": "DANADO",
            **fields,
        }
        return (api or self.api).post(f"/api/pedidos/{order['id']}/devoluciones", sent)

    def move(self, ret: dict, status: str, api: Api | None = None):
        return (api or self.api).patch(f"/api/devoluciones/{ret['id']}/status?status={status}")

    def receive(self, ret: dict, lines: list[dict]):
        return self.api.post(f"/api/devoluciones/{ret['id']}/recepcion", {"lineas": lines})

    def stock(self, product: dict) -> dict[int, int]:
        rows = body(self.api.get(f"/api/inventario/{product['id']}/existencias"))
        return {row["bodegaId"]: row["stockActual"] for row in rows}

    def returned(self, order: dict) -> list[int]:
        shown = body(self.api.get(f"/api/pedidos/{order['id']}"))
        return [line["cantidadDevuelta"] for line in shown["lineas"]]


@pytest.fixture
def shop(order_events, gateway) -> Shop:
    return Shop(gateway())


def test_a_customer_asks_for_a_return_of_delivered_units_and_an_operator_receives_it(shop):
    caja, cinta = shop.product("CAJA"), shop.product("CINTA")
    order = shop.delivered([(caja, 3), (cinta, 2)])
    ana = customer(shop.api, ANA)
    asked = shop.ask(order, [(1, 2), (2, 1)], ana, comentario="Llegó aplastada")
    assert asked.status_code == 201, asked.body
    ret = body(asked)
    assert ret == {
        "id": ret["id"],
        "pedidoId": order["id"],
        "estado": "SOLICITADA",
        "origen": "customer",
        "motivo": "DANADO",
        "comentario": "Llegó aplastada",
        "lineas": [
            {
                "linea": 1,
                "productoId": caja["id"],
                "cantidad": 2,
                "reingresada": 0,
                "descartada": 0,
            },
            {
                "linea": 2,
                "productoId": cinta["id"],
                "cantidad": 1,
                "reingresada": 0,
                "descartada": 0,
            },
        ],
        "creadoEn": ret["creadoEn"],
    }
    assert body(ana.get(f"/api/devoluciones/{ret['id']}")) == ret
    # a second request may take only what is left: line 1 has 1 unit, line 2 has 1
    more = shop.ask(order, [(1, 2)], ana)
    assert more.status_code == 409 and body(more)["error"] == "NOT_RETURNABLE"
    assert body(more)["details"][0]["field"] == "lineas[0].cantidad"

    assert body(shop.move(ret, "APROBADO"))["error"] == "VALIDATION_ERROR"
    approved = shop.move(ret, "APROBADA")
    assert approved.status_code == 200 and body(approved)["estado"] == "APROBADA"
    norte = shop.warehouse("NORTE")
    received = shop.receive(
        ret,
        [
            {"linea": 1, "reingresar": 1, "descartar": 1, "bodegaId": norte},
            {"linea": 2, "reingresar": 0, "descartar": 1},
        ],
    )
    assert received.status_code == 200, received.body
    shown = body(received)
    assert shown["estado"] == "RECIBIDA"
    assert [(x["reingresada"], x["descartada"]) for x in shown["lineas"]] == [(1, 1), (0, 1)]
    assert shop.stock(caja) == {1: 17, norte: 1}  # 20 less 3 delivered, 1 back in NORTE
    assert shop.stock(cinta) == {1: 18}  # discarded units never come back
    assert shop.returned(order) == [2, 1]
    history = body(ana.get(f"/api/devoluciones/{ret['id']}/historial"))
    assert [(h["status"], h["rol"]) for h in history] == [
        ("SOLICITADA", "customer"),
        ("APROBADA", "operator"),
        ("RECIBIDA", "operator"),
    ]
    again = shop.receive(ret, [{"linea": 1, "reingresar": 2, "descartar": 0, "bodegaId": 1}])
    assert again.status_code == 409 and body(again)["error"] == "INVALID_TRANSITION"
    assert shop.stock(caja) == {1: 17, norte: 1}


def test_what_a_request_may_name_and_who_may_see_it(shop):
    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 2)])
    ana, luis = customer(shop.api, ANA), customer(shop.api, LUIS)
    cases = [
        ({"lineas": [{"linea": 9, "cantidad": 1}], "motivo": "OTRO"}, "lineas[0].linea"),
        ({"lineas": [{"linea": 1, "cantidad": 0}], "motivo": "OTRO"}, "lineas[0].cantidad"),
        ({"lineas": [{"linea": 1, "cantidad": 1}], "motivo": "NOPE"}, "motivo"),
        ({"lineas": [], "motivo": "OTRO"}, "lineas"),
        (
            {"lineas": [{"linea": 1, "cantidad": 1}], "motivo": "OTRO", "comentario": "x" * 501},
            "comentario",
        ),
    ]
    for sent, field in cases:
        answer = ana.post(f"/api/pedidos/{order['id']}/devoluciones", sent)
        assert answer.status_code == 400, (sent, answer.body)
        assert field in [d["field"] for d in body(answer)["details"]], answer.body
    # someone else's order is as unknown as one that does not exist
    assert shop.ask(order, [(1, 1)], luis).status_code == 404
    assert body(shop.ask(order, [(1, 1)], luis))["error"] == "ORDER_NOT_FOUND"
    made = body(shop.ask(order, [(1, 1)], ana))
    assert body(luis.get(f"/api/devoluciones/{made['id']}"))["error"] == "RETURN_NOT_FOUND"
    assert luis.get(f"/api/devoluciones/{made['id']}/historial").status_code == 404
    assert body(luis.get("/api/devoluciones")) == []
    assert [r["id"] for r in body(ana.get("/api/devoluciones"))] == [made["id"]]
    assert [r["id"] for r in body(ana.get(f"/api/pedidos/{order['id']}/devoluciones"))] == [
        made["id"]
    ]
    # a customer approves nothing, cancels their own SOLICITADA, receives nothing
    assert shop.move(made, "APROBADA", ana).status_code == 403
    assert shop.move(made, "CANCELADA", luis).status_code == 404
    assert ana.post(f"/api/devoluciones/{made['id']}/recepcion", {"lineas": []}).status_code == 403
    cancelled = shop.move(made, "CANCELADA", ana)
    assert cancelled.status_code == 200 and body(cancelled)["estado"] == "CANCELADA"
    # cancelled units are returnable again: both units now
    assert shop.ask(order, [(1, 2)], ana).status_code == 201
    # an operator's request is the operator's
    assert body(shop.api.get("/api/devoluciones?estado=CANCELADA"))[0]["id"] == made["id"]
    assert body(shop.api.get("/api/devoluciones?estado=NADA"))["error"] == "VALIDATION_ERROR"
    assert shop.api.get("/api/devoluciones/abc").status_code == 400
    assert body(shop.api.get("/api/devoluciones/999999"))["error"] == "RETURN_NOT_FOUND"


def test_the_states_move_as_the_lifecycle_says(shop):
    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 4)])
    first = body(shop.ask(order, [(1, 1)]))
    assert first["origen"] == "operator"
    assert body(shop.move(first, "RECHAZADA"))["estado"] == "RECHAZADA"
    refused = shop.move(first, "APROBADA")
    assert refused.status_code == 409
    assert body(refused)["details"] == [
        {"field": "status", "message": "cannot move from RECHAZADA to APROBADA"}
    ]
    second = body(shop.ask(order, [(1, 4)]))  # rejected units are returnable again
    assert body(shop.move(second, "SOLICITADA"))["estado"] == "SOLICITADA"  # same: 200
    patched = shop.move(second, "RECIBIDA")
    assert patched.status_code == 409 and body(patched)["error"] == "INVALID_TRANSITION"
    shop.move(second, "APROBADA")
    customer_cancel = shop.move(second, "CANCELADA", customer(shop.api, ANA))
    assert customer_cancel.status_code == 403
    assert body(shop.move(second, "CANCELADA"))["estado"] == "CANCELADA"
    history = body(shop.api.get(f"/api/devoluciones/{second['id']}/historial"))
    assert [h["status"] for h in history] == ["SOLICITADA", "APROBADA", "CANCELADA"]


def test_a_reception_checks_every_line_and_an_unknown_warehouse_changes_nothing(shop):
    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 3)])
    ret = body(shop.ask(order, [(1, 3)]))
    early = shop.receive(ret, [{"linea": 1, "reingresar": 3, "descartar": 0, "bodegaId": 1}])
    assert early.status_code == 409 and body(early)["error"] == "INVALID_TRANSITION"
    shop.move(ret, "APROBADA")
    for lines in (
        [{"linea": 1, "reingresar": 2, "descartar": 0, "bodegaId": 1}],  # 2 + 0 != 3
        [{"linea": 1, "reingresar": 3, "descartar": 0}],  # no bodegaId
        [{"linea": 2, "reingresar": 0, "descartar": 3}],  # no such line
        [],
    ):
        answer = shop.receive(ret, lines)
        assert answer.status_code == 400, (lines, answer.body)
    unknown = shop.receive(ret, [{"linea": 1, "reingresar": 3, "descartar": 0, "bodegaId": 999}])
    assert unknown.status_code == 400, unknown.body
    assert body(unknown)["details"][0]["field"] == "lineas[0].bodegaId"
    assert body(shop.api.get(f"/api/devoluciones/{ret['id']}"))["estado"] == "APROBADA"
    assert shop.stock(caja) == {1: 17}
    assert shop.returned(order) == [0]


def test_units_of_a_product_deleted_since_cannot_go_back_and_may_be_discarded(shop):
    """A 409 that says which line and what to do, not a 503 to retry for ever: the
    product is gone, so its units can only be discarded; nothing changes until then."""
    caja, cinta = shop.product("CAJA"), shop.product("CINTA")
    order = shop.delivered([(caja, 3), (cinta, 1)])
    ret = body(shop.ask(order, [(1, 2), (2, 1)]))
    shop.move(ret, "APROBADA")
    assert shop.api.delete(f"/api/inventario/{caja['id']}").status_code == 204
    lines = [
        {"linea": 1, "reingresar": 2, "descartar": 0, "bodegaId": 1},
        {"linea": 2, "reingresar": 1, "descartar": 0, "bodegaId": 1},
    ]
    refused = shop.receive(ret, lines)
    assert refused.status_code == 409, refused.body
    assert body(refused)["error"] == "PRODUCT_DELETED"
    assert [d["field"] for d in body(refused)["details"]] == ["lineas[0].reingresar"]
    assert body(shop.api.get(f"/api/devoluciones/{ret['id']}"))["estado"] == "APROBADA"
    assert shop.stock(cinta) == {1: 19}  # nothing went back
    lines[0] = {"linea": 1, "reingresar": 0, "descartar": 2}
    received = shop.receive(ret, lines)
    assert received.status_code == 200, received.body
    assert shop.stock(cinta) == {1: 20}
    assert shop.returned(order) == [2, 1]


def test_concurrent_receptions_restock_exactly_once(shop):
    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 5)])
    ret = body(shop.ask(order, [(1, 5)]))
    shop.move(ret, "APROBADA")
    lines = [{"linea": 1, "reingresar": 4, "descartar": 1, "bodegaId": 1}]
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: shop.receive(ret, lines), range(6)))
    codes = sorted(a.status_code for a in answers)
    assert codes == [200] + [409] * 5, [a.body for a in answers]
    assert {body(a)["error"] for a in answers if a.status_code == 409} == {"INVALID_TRANSITION"}
    assert shop.stock(caja) == {1: 15 + 4}
    assert shop.returned(order) == [5]


def test_concurrent_requests_never_return_more_than_delivered(shop):
    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 5)])
    ana = customer(shop.api, ANA)
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: shop.ask(order, [(1, 2)], ana), range(8)))
    made = [a for a in answers if a.status_code == 201]
    refused = [a for a in answers if a.status_code != 201]
    assert len(made) == 2, [a.body for a in answers]  # 2 + 2 of 5; a third would be 6
    assert {body(a)["error"] for a in refused} == {"NOT_RETURNABLE"}
    # and a request with what is left still goes through
    assert shop.ask(order, [(1, 1)], ana).status_code == 201
    assert shop.ask(order, [(1, 1)], ana).status_code == 409


def test_concurrent_moves_of_one_return_have_one_winner(shop):
    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 2)])
    ret = body(shop.ask(order, [(1, 2)]))
    targets = ["APROBADA", "RECHAZADA"] * 3  # each excludes the other
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda t: shop.move(ret, t), targets))
    final = body(shop.api.get(f"/api/devoluciones/{ret['id']}"))["estado"]
    winners = [t for t, a in zip(targets, answers, strict=True) if a.status_code == 200]
    assert set(winners) == {final}, [a.body for a in answers]
    assert all(a.status_code in (200, 409) for a in answers)
    history = body(shop.api.get(f"/api/devoluciones/{ret['id']}/historial"))
    assert [h["status"] for h in history] == ["SOLICITADA", final]
    left = 0 if final == "APROBADA" else 2
    asked = shop.ask(order, [(1, 2)])
    assert asked.status_code == (201 if left == 2 else 409)


def test_a_customers_cancel_racing_an_approval_wins_or_is_409_never_403(shop, monkeypatch):
    """One winner, the other 409 (§3): a customer's cancel of their SOLICITADA return that
    loses to an operator's approval is 409 INVALID_TRANSITION, as any loser's, not the 403
    of a customer asking to cancel an approved return."""
    from common.platform.history import Entry
    from orders import return_repository

    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 2)])
    ret = body(shop.ask(order, [(1, 1)], customer(shop.api, ANA)))
    change = return_repository.ReturnRepository.change
    approved = []

    def approve_first(self, current, target, entry, order, *args, **kwargs):
        # The operator's approval lands between the customer's read and write.
        if target == "CANCELADA" and not approved:
            by_operator = Entry("APROBADA", entry.fecha, "operator")
            approved.append(change(self, current, "APROBADA", by_operator, order))
        return change(self, current, target, entry, order, *args, **kwargs)

    monkeypatch.setattr(return_repository.ReturnRepository, "change", approve_first)
    lost = shop.move(ret, "CANCELADA", customer(shop.api, ANA))
    assert (lost.status_code, body(lost)["error"]) == (409, "INVALID_TRANSITION"), lost.body
    assert body(shop.api.get(f"/api/devoluciones/{ret['id']}"))["estado"] == "APROBADA"


def test_a_patch_to_recibida_is_409_even_once_received(shop):
    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 1)])
    ret = body(shop.ask(order, [(1, 1)]))
    shop.move(ret, "APROBADA")
    lines = [{"linea": 1, "reingresar": 1, "descartar": 0, "bodegaId": 1}]
    assert shop.receive(ret, lines).status_code == 200
    again = shop.move(ret, "RECIBIDA")
    assert (again.status_code, body(again)["error"]) == (409, "INVALID_TRANSITION")


def test_a_carrier_return_opens_approved_and_takes_nothing_from_the_customers(shop):
    """The route shipping invokes for a shipment with lines that came back DEVUELTO
    (orders.return_service.open_carrier_return), as another service's invoke reaches it."""
    import json

    from common.http.service_app import InProcess
    from common.http.service_calls import OnBehalf
    from common.identity.callers import service_caller
    from common.orders.return_records import CARRIER_RETURN_ROUTE

    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 3)])
    shipping = OnBehalf(service_caller("shipping"), token=None, gateway_url="", request_id="r")
    invoke = InProcess(lambda: shop.api.app)
    sent = {"pedidoId": order["id"], "envioId": 41, "lineas": [{"linea": 1, "cantidad": 2}]}
    status, raw = invoke.call("POST", CARRIER_RETURN_ROUTE, {}, shipping, body=sent)
    assert status == 201, raw
    opened = json.loads(raw)
    assert (opened["estado"], opened["origen"], opened["motivo"]) == (
        "APROBADA",
        "transportista",
        "NO_ENTREGADO",
    )
    again = invoke.call("POST", CARRIER_RETURN_ROUTE, {}, shipping, body=sent)
    assert json.loads(again[1])["id"] == opened["id"]  # once per shipment
    # no token reaches it
    assert shop.api.post(CARRIER_RETURN_ROUTE, sent).status_code in (403, 404)
    history = body(shop.api.get(f"/api/devoluciones/{opened['id']}/historial"))
    assert [(h["status"], h["rol"]) for h in history] == [("APROBADA", "system")]
    assert shop.ask(order, [(1, 3)]).status_code == 201  # every delivered unit still
    received = shop.receive(opened, [{"linea": 1, "reingresar": 2, "descartar": 0, "bodegaId": 1}])
    assert received.status_code == 200, received.body
    assert shop.returned(order) == [2]


def test_one_shipment_brought_back_opens_one_return_however_many_ask_at_once(shop):
    """Several DEVUELTO events of one shipment at the same moment (a carrier's duplicates
    under new ids): one return, whatever the orders' index showed each of them."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    from common.http.service_app import InProcess
    from common.http.service_calls import OnBehalf
    from common.identity.callers import service_caller
    from common.orders.return_records import CARRIER_RETURN_ROUTE

    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 3)])
    shipping = OnBehalf(service_caller("shipping"), token=None, gateway_url="", request_id="r")
    invoke = InProcess(lambda: shop.api.app)
    sent = {"pedidoId": order["id"], "envioId": 77, "lineas": [{"linea": 1, "cantidad": 3}]}
    with ThreadPoolExecutor(8) as pool:
        answers = list(
            pool.map(
                lambda _: invoke.call("POST", CARRIER_RETURN_ROUTE, {}, shipping, body=sent),
                range(8),
            )
        )
    assert {status for status, _ in answers} <= {200, 201, 503}, answers
    opened = {json.loads(raw)["id"] for status, raw in answers if status in (200, 201)}
    listed = body(shop.api.get(f"/api/pedidos/{order['id']}/devoluciones"))
    assert len(listed) == 1 and opened == {listed[0]["id"]}


def test_a_returns_changes_are_devolucion_events_to_subscribed_endpoints(
    emulator, tables, monkeypatch
):
    """The returns table's stream images, as the webhooks' events function reads them."""
    import json
    import time

    import boto3

    from common.orders.return_model import item_of
    from common.orders.return_records import Return, ReturnLine
    from infra import template
    from tests.integration.test_webhook_functions import (
        CONTEXT,
        endpoint,
        event_of,
        queued,
        settings,
    )
    from tests.support.endpoints import point
    from webhook_events.wiring import create

    point(monkeypatch, "SQS", emulator.url)
    sqs = boto3.client("sqs", endpoint_url=emulator.url)
    for url in sqs.list_queues().get("QueueUrls", []):
        sqs.delete_queue(QueueUrl=url)
    template.create_queues(sqs)
    handler = built(create, settings())
    endpoint("http://127.0.0.1:9/r", ["devolucion.creada", "devolucion.estado"])

    def image(estado: str) -> dict:
        ret = Return(
            id=3,
            pedido_id=42,
            estado=estado,
            origen="customer",
            motivo="DANADO",
            comentario="aplastada",
            lineas=(ReturnLine(linea=1, producto_id=7, cantidad=2),),
            creado_en="2026-12-02T10:00:00.000000",
            user_id=9,
            creado_por="customer",
        )
        return item_of(ret).serialize()

    def record(name: str, old: str | None, new: str) -> dict:
        stream = {"NewImage": image(new), "ApproximateCreationDateTime": time.time()}
        if old is not None:
            stream["OldImage"] = image(old)
        return {
            "eventID": f"r-{name}-{new}",
            "eventName": name,
            "eventSourceARN": "arn:aws:dynamodb:us-east-1:1:table/ReturnsTable/stream/2026",
            "dynamodb": stream,
        }

    records = [
        record("INSERT", None, "SOLICITADA"),
        record("MODIFY", "SOLICITADA", "APROBADA"),
        record("MODIFY", "APROBADA", "APROBADA"),  # nothing an event reports
    ]
    assert handler({"Records": records}, CONTEXT)["events"] == 2
    events = sorted((event_of(m) for m in queued(sqs)), key=lambda e: e["type"])
    assert [e["type"] for e in events] == ["devolucion.creada", "devolucion.estado"]
    created, moved = events
    assert created["data"]["comentario"] == "aplastada" and "userId" not in created["data"]
    assert (moved["data"]["status"], moved["data"]["statusAnterior"]) == ("APROBADA", "SOLICITADA")
    assert json.dumps(created["data"]["lineas"]) == json.dumps(
        [{"linea": 1, "productoId": 7, "cantidad": 2, "reingresada": 0, "descartada": 0}]
    )


def test_a_reception_under_way_cannot_be_cancelled_nor_decided_otherwise(shop, monkeypatch):
    """A reception claims the return before its units go back: a cancellation, or another
    reception deciding otherwise, is refused until it is RECIBIDA; the same one again
    finishes it (its restock made once)."""
    from common.stock.client import InventoryUnavailable, StockClient

    caja = shop.product("CAJA")
    order = shop.delivered([(caja, 2)])
    ret = body(shop.ask(order, [(1, 2)]))
    shop.move(ret, "APROBADA")
    lines = [{"linea": 1, "reingresar": 2, "descartar": 0, "bodegaId": 1}]
    real = StockClient.restock

    def down(self, *args, **kwargs):
        raise InventoryUnavailable(1)

    monkeypatch.setattr(StockClient, "restock", down)
    assert shop.receive(ret, lines).status_code == 503
    monkeypatch.setattr(StockClient, "restock", real)
    cancelled = shop.move(ret, "CANCELADA")
    assert (cancelled.status_code, body(cancelled)["error"]) == (409, "INVALID_TRANSITION")
    other = shop.receive(ret, [{"linea": 1, "reingresar": 0, "descartar": 2}])
    assert other.status_code == 409
    assert shop.receive(ret, lines).status_code == 200
    assert shop.stock(caja) == {1: 20}  # 20 less 2 delivered, 2 back: once
