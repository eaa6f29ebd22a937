"""Shipments of parts of an order (docs/api.md#shipments-of-parts) through the gateway app
against emulated DynamoDB: which lines a shipment may carry and from which warehouse, the
order's count of units on shipments under concurrent creates, a shipment deleted, its
units leaving its warehouse once when it first leaves (by PATCH or by event, retried or
moved back and forth), and the order following its parts by itself."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from common.http.service_app import InProcess
from common.platform import aws
from common.platform.settings import Cloud, Tokens
from infra.dev.tokens import local_token
from tests.integration.test_order_lines import Depot
from tests.integration.test_stock_follows_orders import repair_of
from tests.support.api import body, error_code
from tests.support.samples import SHIPMENT
from tests.support.settings import every


@pytest.fixture
def depot(order_events, gateway) -> Depot:
    return Depot(gateway())


def ship(depot: Depot, order: dict, lines: list[tuple[int, int]] | None, **fields):
    sent = {**SHIPMENT, "pedidoId": order["id"], **fields}
    if lines is not None:
        sent["lineas"] = [{"linea": linea, "cantidad": units} for linea, units in lines]
    return depot.api.post("/api/envios", sent)


def shipped(depot: Depot, order: dict, lines: list[tuple[int, int]], **fields) -> dict:
    answer = ship(depot, order, lines, **fields)
    assert answer.status_code == 201, answer.body
    return body(answer)


def status(depot: Depot, shipment: dict, to: str):
    return depot.api.patch(f"/api/envios/{shipment['id']}/status?status={to}")


def order_now(depot: Depot, order: dict) -> dict:
    return body(depot.api.get(f"/api/pedidos/{order['id']}"))


def counts(depot: Depot, order: dict) -> list[tuple[int, int]]:
    return [
        (line["cantidadEnviada"], line["cantidadEntregada"])
        for line in order_now(depot, order)["lineas"]
    ]


@pytest.fixture
def approved(depot):
    """An approved order of two lines: 4 CAJA (3 in PRINCIPAL, 1 in NORTE, by priority)
    and 2 CINTA (in PRINCIPAL)."""
    norte = depot.warehouse("NORTE", prioridad=200)
    caja = depot.product("CAJA", {1: 3, norte: 5})
    cinta = depot.product("CINTA", {1: 6})
    order = depot.order(
        [{"productoId": caja["id"], "cantidad": 4}, {"productoId": cinta["id"], "cantidad": 2}]
    )
    assert depot.move(order, "APROBADO").status_code == 200
    return order, caja, cinta, norte


def test_a_shipment_of_lines_answers_its_warehouse_and_lines_and_one_without_them_does_not(
    depot, approved
):
    order, caja, cinta, norte = approved
    part = shipped(depot, order, [(1, 2), (2, 2)])  # PRINCIPAL holds both lines' units
    assert (part["bodegaId"], part["lineas"]) == (
        1,
        [{"linea": 1, "cantidad": 2}, {"linea": 2, "cantidad": 2}],
    )
    assert body(depot.api.get(f"/api/envios/{part['id']}"))["lineas"] == part["lineas"]
    plain = body(ship(depot, order, None))
    assert "lineas" not in plain and "bodegaId" not in plain  # the contract's, as before
    # Making shipments moved no stock: the units are still held.
    assert depot.rows(caja) == {1: (3, 3, 0), norte: (5, 1, 4)}


def test_what_a_shipment_of_lines_may_carry(depot, approved):
    order, caja, cinta, norte = approved
    # Line 1's units are in two warehouses: one must be named.
    several = ship(depot, order, [(1, 1)])
    assert (several.status_code, error_code(several)) == (409, "SEVERAL_WAREHOUSES")
    assert {d["field"] for d in body(several)["details"]} == {"bodegaId"}
    assert str(norte) in body(several)["message"]
    # More than the named warehouse holds for the line, though the line has them: the
    # units are not all in that one (the warehouses holding them named).
    over = ship(depot, order, [(1, 2)], bodegaId=norte)
    assert (over.status_code, error_code(over)) == (409, "SEVERAL_WAREHOUSES")
    assert [d["field"] for d in body(over)["details"]] == ["bodegaId", "bodegaId"]
    # More than the line has not yet on a shipment, anywhere.
    beyond = ship(depot, order, [(2, 1), (1, 5)], bodegaId=1)
    assert (beyond.status_code, error_code(beyond)) == (409, "EXCEEDS_PENDING")
    assert [d["field"] for d in body(beyond)["details"]] == ["lineas[1].cantidad"]
    assert shipped(depot, order, [(1, 1)], bodegaId=norte)["bodegaId"] == norte
    # NORTE's unit of line 1 is on a shipment now: NORTE holds none of what is left.
    again = ship(depot, order, [(2, 1), (1, 1)], bodegaId=norte)
    assert (again.status_code, error_code(again)) == (409, "SEVERAL_WAREHOUSES")
    assert str(norte) not in body(again)["message"].split(": ")[0]
    # Only PRINCIPAL holds line 1's other units now: it is the one without naming it.
    assert shipped(depot, order, [(1, 3)])["bodegaId"] == 1
    nothing_left = ship(depot, order, [(1, 1)])
    assert (nothing_left.status_code, error_code(nothing_left)) == (409, "EXCEEDS_PENDING")


@pytest.mark.parametrize(
    ("lines", "field"),
    [
        ([{"linea": 3, "cantidad": 1}], "lineas[0].linea"),
        ([{"linea": 1, "cantidad": 1}, {"linea": 1, "cantidad": 1}], "lineas[1].linea"),
        ([{"linea": 1, "cantidad": 0}], "lineas[0].cantidad"),
        ([], "lineas"),
        ("todo", "lineas"),
    ],
)
def test_bad_lines_are_400_naming_the_field(depot, approved, lines, field):
    order = approved[0]
    refused = depot.api.post("/api/envios", {**SHIPMENT, "pedidoId": order["id"], "lineas": lines})
    assert (refused.status_code, error_code(refused)) == (400, "VALIDATION_ERROR")
    assert field in {d["field"] for d in body(refused)["details"]}


def test_the_order_must_exist_and_ship(depot, approved):
    order, caja, _, _ = approved
    unknown = depot.api.post(
        "/api/envios", {**SHIPMENT, "pedidoId": 999999, "lineas": [{"linea": 1, "cantidad": 1}]}
    )
    assert (unknown.status_code, error_code(unknown)) == (400, "ORDER_NOT_FOUND")
    pending = depot.order([{"productoId": caja["id"], "cantidad": 1}])
    refused = ship(depot, pending, [(1, 1)])
    assert (refused.status_code, error_code(refused)) == (409, "ORDER_NOT_SHIPPABLE")
    assert depot.move(order, "CANCELADO").status_code == 200
    cancelled = ship(depot, order, [(2, 1)])
    assert (cancelled.status_code, error_code(cancelled)) == (409, "ORDER_NOT_SHIPPABLE")


def test_concurrent_creates_never_put_a_unit_on_two_shipments(depot):
    caja = depot.product("CAJA", {1: 10})
    order = depot.order([{"productoId": caja["id"], "cantidad": 5}])
    depot.move(order, "APROBADO")

    def one(_: int):
        return ship(depot, order, [(1, 1)])

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(one, range(8)))
    made = [a for a in answers if a.status_code == 201]
    refused = {error_code(a) for a in answers if a.status_code != 201}
    assert len(made) == 5
    assert refused <= {"EXCEEDS_PENDING"}
    assert ship(depot, order, [(1, 1)]).status_code == 409


def test_a_deleted_shipment_gives_its_units_back_and_one_on_its_way_stays(depot, approved):
    order = approved[0]
    part = shipped(depot, order, [(2, 2)])
    assert ship(depot, order, [(2, 1)]).status_code == 409
    assert status(depot, part, "ASIGNADO").status_code == 200
    gone = depot.api.delete(f"/api/envios/{part['id']}")
    assert gone.status_code == 204
    assert depot.api.get(f"/api/envios/{part['id']}").status_code == 404
    missing = depot.api.delete(f"/api/envios/{part['id']}")
    assert (missing.status_code, error_code(missing)) == (404, "SHIPMENT_NOT_FOUND")
    again = shipped(depot, order, [(2, 2)])  # its units are again not on a shipment
    assert status(depot, again, "EN_RUTA").status_code == 200
    refused = depot.api.delete(f"/api/envios/{again['id']}")
    assert (refused.status_code, error_code(refused)) == (409, "SHIPMENT_ON_ITS_WAY")
    plain = body(ship(depot, order, None))
    assert depot.api.delete(f"/api/envios/{plain['id']}").status_code == 204


def test_only_operators_delete_shipments(depot, gateway, approved):
    part = shipped(depot, approved[0], [(2, 1)])
    customer = gateway()
    customer.token = local_token(Tokens.from_env(), "ana@example.com", "customer", 1)
    refused = customer.delete(f"/api/envios/{part['id']}")
    assert refused.status_code == 403
    assert depot.api.get(f"/api/envios/{part['id']}").status_code == 200


def test_units_leave_with_their_shipment_once_and_the_order_follows_by_itself(depot, approved):
    order, caja, cinta, norte = approved
    first = shipped(depot, order, [(1, 3), (2, 2)])  # PRINCIPAL
    second = shipped(depot, order, [(1, 1)], bodegaId=norte)
    assert status(depot, first, "EN_RUTA").status_code == 200
    assert depot.rows(caja) == {1: (0, 0, 0), norte: (5, 1, 4)}
    assert depot.rows(cinta) == {1: (4, 0, 4)}
    now = order_now(depot, order)
    assert now["status"] == "EN_ENVIO"
    assert counts(depot, order) == [(3, 0), (2, 0)]
    history = body(depot.api.get(f"/api/pedidos/{order['id']}/historial"))
    assert (history[-1]["status"], history[-1]["rol"]) == ("EN_ENVIO", "system")
    # Back and forth, and a same-state PATCH: nothing more leaves, nothing more counts.
    for to in ("ASIGNADO", "EN_RUTA", "EN_RUTA", "ENTREGADO", "EN_RUTA"):
        assert status(depot, first, to).status_code == 200
    assert depot.rows(caja) == {1: (0, 0, 0), norte: (5, 1, 4)}
    assert counts(depot, order) == [(3, 3), (2, 2)]
    assert order_now(depot, order)["status"] == "EN_ENVIO"
    # The last part, by a tracking event straight to ENTREGADO: the order is delivered.
    event = depot.api.post(f"/api/envios/{second['id']}/eventos", {"estado": "ENTREGADO"})
    assert event.status_code == 201, event.body
    assert depot.rows(caja) == {1: (0, 0, 0), norte: (4, 0, 4)}
    assert counts(depot, order) == [(4, 4), (2, 2)]
    delivered = order_now(depot, order)
    assert delivered["status"] == "ENTREGADO"
    history = body(depot.api.get(f"/api/pedidos/{order['id']}/historial"))
    assert [(h["status"], h["rol"]) for h in history[-2:]] == [
        ("EN_ENVIO", "system"),
        ("ENTREGADO", "system"),
    ]


def test_a_retried_take_out_takes_nothing_more(depot, approved):
    """A crash between the take-out and the shipment's status write: the retry asks the
    inventory again (keyed by the shipment) and takes nothing more."""
    from common.stock import moves
    from shipping import wiring

    order, caja, cinta, _ = approved
    part = shipped(depot, order, [(2, 1)])
    with aws.acting_as(wiring.FUNCTION):
        parts = wiring.parts_for(
            **every().arguments(wiring.parts_for), services_here=InProcess(lambda: depot.api.app)
        )
    taken = parts.stock.take_part(order["id"], part["id"], 1, {2: 1})
    assert taken == (True, False)
    assert depot.rows(cinta) == {1: (5, 1, 4)}
    assert parts.stock.take_part(order["id"], part["id"], 1, {2: 1}) == (False, False)
    # The shipment's own move now: its take-out was made, nothing more leaves.
    assert status(depot, part, "EN_RUTA").status_code == 200
    assert depot.rows(cinta) == {1: (5, 1, 4)}
    assert counts(depot, order) == [(0, 0), (1, 0)]
    assert moves.PART_ROUTE.endswith("/envios/{envioId}")


def test_the_orders_own_moves_still_work_beside_its_parts(depot, approved):
    order, caja, cinta, norte = approved
    first = shipped(depot, order, [(2, 1)])
    shipped(depot, order, [(1, 3)])  # made, not on its way
    # The order's own EN_ENVIO takes out every unit still reserved (§7).
    moved = depot.move(order, "EN_ENVIO")
    assert moved.status_code == 200, moved.body
    assert depot.rows(caja) == {1: (0, 0, 0), norte: (4, 0, 4)}
    assert depot.rows(cinta) == {1: (4, 0, 4)}
    assert counts(depot, order) == [(4, 0), (2, 0)]
    # A part leaving after it takes nothing more.
    assert status(depot, first, "ENTREGADO").status_code == 200
    assert depot.rows(cinta) == {1: (4, 0, 4)}
    assert counts(depot, order) == [(4, 0), (2, 1)]
    assert depot.move(order, "ENTREGADO").status_code == 200
    assert counts(depot, order) == [(4, 4), (2, 2)]


def test_the_repair_leaves_parts_not_yet_on_their_way_alone(depot, approved):
    order, caja, cinta, norte = approved
    part = shipped(depot, order, [(2, 2)])
    assert status(depot, part, "EN_RUTA").status_code == 200
    assert order_now(depot, order)["status"] == "EN_ENVIO"
    with aws.acting_as("StockRepairFunction"):
        outcome = repair_of(depot.api)()
    assert outcome["repaired"] == 0
    # Line 1's units are still held, for their own shipments.
    assert depot.rows(caja) == {1: (3, 3, 0), norte: (5, 1, 4)}


def test_a_carriers_event_takes_the_units_out_once_as_a_patch_does(depot, approved):
    """The tracking function's path (a carrier's signed event) is the same one move."""
    from tests.integration.test_tracking_routes import push

    order, caja, cinta, _ = approved
    made = depot.api.post("/api/transportistas", {"codigo": "OLVA", "nombre": "Olva"})
    secret = body(made)["secreto"]
    part = shipped(depot, order, [(2, 2)], transportista="Olva")
    sent = {"codigoSeguimiento": part["codigoSeguimiento"], "estado": "EN_RUTA"}
    for _ in range(2):  # the carrier's retry of the same event
        pushed = push(depot.api, "OLVA", secret, sent, msg_id="olva-1")
        assert pushed.status_code == 202, pushed.body
    assert depot.rows(cinta) == {1: (4, 0, 4)}
    assert order_now(depot, order)["status"] == "EN_ENVIO"
    later = {**sent, "estado": "ENTREGADO"}
    assert push(depot.api, "OLVA", secret, later, msg_id="olva-2").status_code == 202
    assert depot.rows(cinta) == {1: (4, 0, 4)}
    assert counts(depot, order) == [(0, 0), (2, 2)]
    history = body(depot.api.get(f"/api/envios/{part['id']}/historial"))
    assert [(h["status"], h["rol"]) for h in history[1:]] == [
        ("EN_RUTA", "system"),
        ("ENTREGADO", "system"),
    ]


def test_an_order_on_its_way_by_a_part_counts_every_unit_when_its_own_take_out_took_them(
    depot, approved
):
    """What the order's own EN_ENVIO does when it loses its status write to its first part
    on the road (orders.service: its take-out took the rest): every line wholly on its
    way, its deliveries left as they are."""
    from orders.repository import OrderRepository

    order = approved[0]
    part = shipped(depot, order, [(2, 2)])
    assert status(depot, part, "ENTREGADO").status_code == 200
    with aws.acting_as("OrdersFunction"):
        orders = OrderRepository(Cloud.from_env())
        orders.all_on_their_way(orders.get(order["id"]))
    assert counts(depot, order) == [(4, 0), (2, 2)]


def test_a_shipment_of_lines_brought_back_opens_its_return_once(depot, approved):
    """A DEVUELTO tracking event of a shipment with lines opens a return of those units by
    itself (docs/api.md#returns): APROBADA, from the carrier, NO_ENTREGADO; the shipment
    brought back again, or any later event, opens no other."""
    order = approved[0]
    part = shipped(depot, order, [(1, 2), (2, 2)])
    other = shipped(depot, order, [(1, 1)], bodegaId=approved[3])
    assert status(depot, part, "EN_RUTA").status_code == 200
    events = f"/api/envios/{part['id']}/eventos"
    assert depot.api.post(events, {"estado": "DEVUELTO", "idExterno": "back-1"}).status_code == 201
    assert depot.api.post(events, {"estado": "DEVUELTO", "idExterno": "back-2"}).status_code == 201
    assert depot.api.post(events, {"estado": "INCIDENCIA", "detalle": "x"}).status_code == 201
    assert body(depot.api.get(f"/api/envios/{part['id']}"))["estadoSeguimiento"] == "DEVUELTO"
    returns = body(depot.api.get(f"/api/pedidos/{order['id']}/devoluciones"))
    assert [
        (r["estado"], r["origen"], r["motivo"], [(x["linea"], x["cantidad"]) for x in r["lineas"]])
        for r in returns
    ] == [("APROBADA", "transportista", "NO_ENTREGADO", [(1, 2), (2, 2)])]
    # The other shipment, never brought back, opened none.
    assert status(depot, other, "ENTREGADO").status_code == 200
    assert len(body(depot.api.get(f"/api/pedidos/{order['id']}/devoluciones"))) == 1
