"""Stock follows orders (docs/api.md#stock-follows-orders) and every order's and
shipment's history (docs/api.md#history), through the gateway app against emulated
DynamoDB: the orders routes ask the inventory's internal routes for each move, as on AWS
(here in the same app, common.http.service_app.InProcess)."""

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from types import SimpleNamespace

import pytest

from common.http.service_app import InProcess
from common.identity.callers import OPERATOR, Caller
from common.platform import aws
from common.platform.clock import utcnow
from common.platform.logs import get_logger
from common.platform.settings import Cloud, Tokens
from common.stock.client import StockClient
from infra.dev.tokens import local_token
from orders.commands import ChangeStatus
from orders.repository import OrderRepository
from orders.service import change_status
from stock_repair import wiring as repair_wiring
from stock_repair.repair import Repair
from tests.support.api import body
from tests.support.samples import ORDER, PRODUCT, SHIPMENT
from tests.support.settings import built, every


def customer_token(user_id: int = 1) -> str:
    return local_token(Tokens.from_env(), f"c{user_id}@example.com", "customer", user_id)


def error_code(response) -> str:
    return body(response)["error"]


@pytest.fixture
def shop(orders_api):
    """A product with `stock` units, and orders of it."""

    class Shop:
        api = orders_api

        def product(self, stock: int = 3, threshold: int = 0, sku: str = "S-1") -> dict:
            made = {**PRODUCT, "sku": sku, "stockActual": stock, "umbralMinimo": threshold}
            return body(self.api.post("/api/inventario", made))

        def order(self, product: dict, cantidad: int = 1, **kw) -> dict:
            sent = {**ORDER, "productoId": product["id"], "cantidad": cantidad}
            response = self.api.post("/api/pedidos", sent, **kw)
            assert response.status_code == 201, response.body
            return body(response)

        def move(self, order: dict, status: str, **kw):
            return self.api.patch(f"/api/pedidos/{order['id']}/status?status={status}", **kw)

        def units(self, product: dict) -> tuple[int, int, int]:
            found = body(self.api.get(f"/api/inventario/{product['id']}"))
            return found["stockActual"], found["stockReservado"], found["stockDisponible"]

        def reservations(self, product: dict) -> list[dict]:
            return body(self.api.get(f"/api/inventario/{product['id']}/reservas"))

    return Shop()


def test_a_new_product_has_no_units_reserved_and_a_client_cannot_set_them(shop):
    made = body(
        shop.api.post("/api/inventario", {**PRODUCT, "stockReservado": 7, "stockDisponible": 99})
    )
    assert (made["stockReservado"], made["stockDisponible"]) == (0, PRODUCT["stockActual"])
    replaced = body(shop.api.put(f"/api/inventario/{made['id']}", {**PRODUCT, "stockReservado": 5}))
    assert replaced["stockReservado"] == 0
    listed = body(shop.api.get("/api/inventario"))
    assert {"stockReservado", "stockDisponible"} <= set(listed[0])


def test_the_lifecycle_moves_the_units(shop):
    product = shop.product(stock=5, threshold=4)
    shipped, cancelled, pending = (
        shop.order(product, 2),
        shop.order(product, 1),
        shop.order(product),
    )
    assert shop.units(product) == (5, 0, 5)  # a pending order holds nothing
    assert shop.move(shipped, "APROBADO").status_code == 200
    assert shop.move(cancelled, "APROBADO").status_code == 200
    assert shop.units(product) == (5, 3, 2)
    held = shop.reservations(product)
    assert held == [
        {
            "pedidoId": shipped["id"],
            "linea": 1,
            "bodegaId": 1,
            "cantidad": 2,
            "desde": held[0]["desde"],
        },
        {
            "pedidoId": cancelled["id"],
            "linea": 1,
            "bodegaId": 1,
            "cantidad": 1,
            "desde": held[1]["desde"],
        },
    ]
    assert shop.move(shipped, "EN_ENVIO").status_code == 200
    assert shop.units(product) == (3, 1, 2)
    # below its threshold once the units left: in the alerts
    assert [p["id"] for p in body(shop.api.get("/api/inventario/alertas"))] == [product["id"]]
    assert shop.move(cancelled, "CANCELADO").status_code == 200
    assert shop.move(pending, "CANCELADO").status_code == 200
    assert shop.move(shipped, "ENTREGADO").status_code == 200
    assert shop.units(product) == (3, 0, 3)
    assert shop.reservations(product) == []


def test_concurrent_approvals_never_oversell(shop):
    product = shop.product(stock=3)
    orders = [shop.order(product) for _ in range(8)]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda o: shop.move(o, "APROBADO"), orders))
    codes = sorted(r.status_code for r in answers)
    assert codes == [200] * 3 + [409] * 5
    refused = [body(r) for r in answers if r.status_code == 409]
    assert {r["error"] for r in refused} == {"INSUFFICIENT_STOCK"}
    assert refused[0]["details"][0]["field"] == "cantidad"
    assert shop.units(product) == (3, 3, 0)
    assert sum(r["cantidad"] for r in shop.reservations(product)) == 3
    statuses = [body(shop.api.get(f"/api/pedidos/{o['id']}"))["status"] for o in orders]
    assert sorted(statuses) == ["APROBADO"] * 3 + ["PENDIENTE"] * 5


def test_a_ship_racing_a_cancel_applies_exactly_one(shop):
    for n in range(3):
        product = shop.product(stock=2, sku=f"R-{n}")
        order = shop.order(product, 2)
        shop.move(order, "APROBADO")
        with ThreadPoolExecutor(2) as pool:
            racing = [pool.submit(shop.move, order, s) for s in ("EN_ENVIO", "CANCELADO")]
            answers = [r.result() for r in racing]
        final = body(shop.api.get(f"/api/pedidos/{order['id']}"))["status"]
        assert sorted(r.status_code for r in answers) == [200, 409]
        assert shop.units(product) == ((0, 0, 0) if final == "EN_ENVIO" else (2, 0, 2))


def test_a_same_state_patch_reserves_nothing_more(shop):
    product = shop.product(stock=5)
    order = shop.order(product, 2)
    for _ in range(3):
        assert shop.move(order, "APROBADO").status_code == 200
    assert shop.units(product) == (5, 2, 3)
    assert [e["status"] for e in body(shop.api.get(f"/api/pedidos/{order['id']}/historial"))] == [
        "PENDIENTE",
        "APROBADO",
    ]


def test_a_deleted_product_refuses_the_approval(shop):
    product = shop.product(stock=5)
    order = shop.order(product)
    assert shop.api.delete(f"/api/inventario/{product['id']}").status_code == 204
    answer = shop.move(order, "APROBADO")
    assert (answer.status_code, error_code(answer)) == (409, "PRODUCT_NOT_FOUND")
    assert body(shop.api.get(f"/api/pedidos/{order['id']}"))["status"] == "PENDIENTE"


def test_a_reserved_product_is_not_deleted_and_a_recount_may_go_below_its_reservations(shop):
    product = shop.product(stock=5)
    held, waiting = shop.order(product, 4), shop.order(product, 1)
    shop.move(held, "APROBADO")
    answer = shop.api.delete(f"/api/inventario/{product['id']}")
    assert (answer.status_code, error_code(answer)) == (409, "PRODUCT_RESERVED")
    recount = {**PRODUCT, "sku": "S-1", "stockActual": 2}
    recounted = body(shop.api.put(f"/api/inventario/{product['id']}", recount))
    assert (recounted["stockReservado"], recounted["stockDisponible"]) == (4, -2)
    assert error_code(shop.move(waiting, "APROBADO")) == "INSUFFICIENT_STOCK"


def test_shipping_units_a_recount_no_longer_finds_is_refused_and_stock_never_goes_negative(shop):
    product = shop.product(stock=5)
    order = shop.order(product, 4)
    assert shop.move(order, "APROBADO").status_code == 200
    recount = {**PRODUCT, "sku": "S-1", "stockActual": 2}
    assert shop.api.put(f"/api/inventario/{product['id']}", recount).status_code == 200
    answer = shop.move(order, "EN_ENVIO")
    assert (answer.status_code, error_code(answer)) == (409, "INSUFFICIENT_STOCK")
    assert body(answer)["details"][0]["field"] == "cantidad"
    assert body(shop.api.get(f"/api/pedidos/{order['id']}"))["status"] == "APROBADO"
    assert shop.units(product) == (2, 4, -2)
    # what GET shows, PUT takes back unchanged
    shown = body(shop.api.get(f"/api/inventario/{product['id']}"))
    assert shop.api.put(f"/api/inventario/{product['id']}", shown).status_code == 200
    # once the units are back on hand, it ships
    restocked = {**PRODUCT, "sku": "S-1", "stockActual": 4}
    assert shop.api.put(f"/api/inventario/{product['id']}", restocked).status_code == 200
    assert shop.move(order, "EN_ENVIO").status_code == 200
    assert shop.units(product) == (0, 0, 0)


def test_customers_keep_their_rights_and_may_not_read_reservations(shop):
    product = shop.product(stock=5)
    order = shop.order(product, 2, token=customer_token(1))
    shop.move(order, "APROBADO")
    assert shop.move(order, "CANCELADO", token=customer_token(1)).status_code == 200
    assert shop.units(product) == (5, 0, 5)
    answer = shop.api.get(f"/api/inventario/{product['id']}/reservas", token=customer_token(1))
    assert (answer.status_code, error_code(answer)) == (403, "FORBIDDEN")
    unknown = shop.api.get("/api/inventario/999999/reservas")
    assert (unknown.status_code, error_code(unknown)) == (404, "PRODUCT_NOT_FOUND")


def test_no_token_reaches_the_internal_moves(shop):
    product = shop.product(stock=5)
    order = shop.order(product)
    moved = shop.api.post(
        f"/internal/reservas/{order['id']}/reservar", {"productoId": product["id"], "cantidad": 1}
    )
    read = shop.api.get(f"/internal/reservas/{order['id']}")
    for answer in (moved, read):
        assert (answer.status_code, error_code(answer)) == (403, "FORBIDDEN")
    assert shop.units(product) == (5, 0, 5)


# -- history ------------------------------------------------------------------------------


def test_an_orders_history_is_its_creation_then_each_change_with_who_made_it(shop):
    product = shop.product(stock=5)
    order = shop.order(product, token=customer_token(1))
    shop.move(order, "APROBADO")
    shop.move(order, "APROBADO")  # the same state: nothing
    shop.move(order, "ENTREGADO")  # refused: nothing
    shop.move(order, "EN_ENVIO")
    shop.move(order, "ENTREGADO")
    history = body(shop.api.get(f"/api/pedidos/{order['id']}/historial"))
    assert [(e["status"], e["rol"]) for e in history] == [
        ("PENDIENTE", "customer"),
        ("APROBADO", "operator"),
        ("EN_ENVIO", "operator"),
        ("ENTREGADO", "operator"),
    ]
    assert history[0]["fecha"] == order["creadoEn"]
    assert [e["fecha"] for e in history] == sorted(e["fecha"] for e in history)
    mine = shop.api.get(f"/api/pedidos/{order['id']}/historial", token=customer_token(1))
    assert body(mine) == history
    theirs = shop.api.get(f"/api/pedidos/{order['id']}/historial", token=customer_token(2))
    unknown = shop.api.get("/api/pedidos/999999/historial", token=customer_token(2))
    assert theirs.status_code == unknown.status_code == 404
    assert body(theirs)["error"] == "ORDER_NOT_FOUND"
    bad = shop.api.get("/api/pedidos/abc/historial")
    assert (bad.status_code, error_code(bad)) == (400, "INVALID_ID")


def test_a_shipments_history_keeps_repeated_states_but_not_same_state_patches(shop):
    shipment = body(shop.api.post("/api/envios", SHIPMENT))
    for status in ("ASIGNADO", "ASIGNADO", "EN_RUTA", "ASIGNADO", "ENTREGADO"):
        shop.api.patch(f"/api/envios/{shipment['id']}/status?status={status}")
    history = body(shop.api.get(f"/api/envios/{shipment['id']}/historial"))
    assert [e["status"] for e in history] == [
        "CREADO",
        "ASIGNADO",
        "EN_RUTA",
        "ASIGNADO",
        "ENTREGADO",
    ]
    assert {e["rol"] for e in history} == {"operator"}
    assert history[0]["fecha"] == shipment["creadoEn"]
    bad = shop.api.get("/api/envios/0x1/historial")
    assert (bad.status_code, error_code(bad)) == (400, "INVALID_ID")
    unknown = shop.api.get("/api/envios/999999/historial")
    assert (unknown.status_code, error_code(unknown)) == (404, "SHIPMENT_NOT_FOUND")


def test_concurrent_shipment_changes_each_add_one_entry(shop):
    shipment = body(shop.api.post("/api/envios", SHIPMENT))
    sent = ["ASIGNADO", "EN_RUTA", "ENTREGADO", "CREADO"] * 3
    with ThreadPoolExecutor(8) as pool:
        list(
            pool.map(
                lambda s: shop.api.patch(f"/api/envios/{shipment['id']}/status?status={s}"), sent
            )
        )
    history = body(shop.api.get(f"/api/envios/{shipment['id']}/historial"))
    # each entry is a change that succeeded: never the state before it again
    assert all(a["status"] != b["status"] for a, b in zip(history, history[1:], strict=False))
    final = body(shop.api.get(f"/api/envios/{shipment['id']}"))["status"]
    assert history[-1]["status"] == final


def test_items_written_before_history_answer_with_their_creation_alone(shop, tables):
    product = shop.product(stock=5)
    order = shop.order(product)
    shipment = body(shop.api.post("/api/envios", SHIPMENT))
    # as an earlier version wrote them: no history, no creator
    tables.update_item(
        TableName=Cloud.from_env().table_name("OrdersTable"),
        Key={"id": {"N": str(order["id"])}},
        UpdateExpression="REMOVE creadoPor, historial SET #s = :s",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": {"S": "APROBADO"}},
    )
    assert body(shop.api.get(f"/api/pedidos/{order['id']}/historial")) == [
        {"status": "PENDIENTE", "fecha": order["creadoEn"], "rol": None}
    ]
    assert body(shop.api.get(f"/api/envios/{shipment['id']}/historial")) == [
        {"status": "CREADO", "fecha": shipment["creadoEn"], "rol": "operator"}
    ]
    # approved before reservations existed: it holds no units, and still ships
    assert shop.move(order, "EN_ENVIO").status_code == 200
    assert shop.units(product) == (4, 0, 4)
    history = body(shop.api.get(f"/api/pedidos/{order['id']}/historial"))
    assert [e["status"] for e in history] == ["PENDIENTE", "EN_ENVIO"]


# -- the repair ---------------------------------------------------------------------------


@pytest.fixture
def repair(shop):
    return repair_of(shop.api)


def repair_of(api) -> Repair:
    """The repair as its function runs it, asking the inventory's routes of the gateway
    app, with no grace (every move is old enough)."""
    settings = every()
    moves = built(repair_wiring.inventory, settings)
    moves._moves = InProcess(lambda: api.app)  # the inventory's function, here
    with aws.acting_as("StockRepairFunction"):
        orders = OrderRepository(settings.cloud)
    return Repair(orders, moves, get_logger("stock-repair"), grace=timedelta(0))


def internal(shop, order: dict, move: str) -> None:
    """A stock move as the orders service asks it, with no status write after (a crash)."""
    from common.http.service_calls import OnBehalf
    from common.identity.callers import service_caller

    caller = OnBehalf(service_caller("orders"), token=None, gateway_url="")
    status, _ = InProcess(lambda: shop.api.app).call(
        "POST",
        "/internal/reservas/{pedidoId}/{accion}",
        {"pedidoId": str(order["id"]), "accion": move},
        caller,
        body={
            "lineas": [
                {"linea": li["linea"], "productoId": li["productoId"], "cantidad": li["cantidad"]}
                for li in order["lineas"]
            ]
        },
    )
    assert status == 200


def test_the_repair_puts_right_what_a_crash_left(shop, repair, tables):
    product = shop.product(stock=10)
    lost_approval, lost_cancel, lost_ship, legacy, fine = (
        shop.order(product, n) for n in (1, 2, 3, 1, 1)
    )
    internal(shop, lost_approval, "reservar")  # then the orders function died
    for order in (lost_cancel, lost_ship, fine):
        shop.move(order, "APROBADO")
    internal(shop, lost_cancel, "devolver")
    internal(shop, lost_ship, "retirar")
    tables.update_item(  # approved before reservations existed
        TableName=Cloud.from_env().table_name("OrdersTable"),
        Key={"id": {"N": str(legacy["id"])}},
        UpdateExpression="SET #s = :s, statusShard = :shard",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={
            ":s": {"S": "APROBADO"},
            ":shard": {"S": f"APROBADO#{legacy['id'] % 16}"},
        },
    )
    assert shop.units(product) == (7, 2, 5)  # what the crashes left
    with aws.acting_as("StockRepairFunction"):
        outcome = repair()
    assert (outcome["repaired"], outcome["failed"], outcome["complete"]) == (4, 0, True)
    # every APROBADO order holds its units, and nothing else does
    held = {r["pedidoId"]: r["cantidad"] for r in shop.reservations(product)}
    assert held == {lost_cancel["id"]: 2, lost_ship["id"]: 3, legacy["id"]: 1, fine["id"]: 1}
    assert shop.units(product) == (10, 7, 3)
    with aws.acting_as("StockRepairFunction"):
        again = repair()
    assert again["repaired"] == 0  # nothing left to put right


def test_the_repair_puts_right_orders_of_several_lines_in_each_warehouse(shop, repair):
    """A crash after the stock move of a two-line order whose units come from two
    warehouses: the repair gives back (a lost approval) or puts back (a lost ship) every
    line in each warehouse it came from, once."""
    norte = body(shop.api.post("/api/bodegas", {"codigo": "NORTE", "nombre": "N", "prioridad": 10}))
    p = shop.product(stock=2, sku="P-2W")
    put = shop.api.put(f"/api/inventario/{p['id']}/existencias/{norte['id']}", {"stockActual": 1})
    assert put.status_code == 200
    q = shop.product(stock=10, sku="Q-2W")

    def placed() -> dict:
        lines = [{"productoId": p["id"], "cantidad": 1}, {"productoId": q["id"], "cantidad": 1}]
        sent = {k: v for k, v in ORDER.items() if k not in ("productoId", "cantidad", "total")}
        made = shop.api.post("/api/pedidos", {**sent, "lineas": lines})
        assert made.status_code == 201, made.body
        return body(made)

    lost_approval, lost_ship = placed(), placed()
    assert shop.move(lost_ship, "APROBADO").status_code == 200  # P from NORTE (priority 10)
    internal(shop, lost_approval, "reservar")  # P's last unit, from PRINCIPAL's two
    internal(shop, lost_ship, "retirar")
    rows = body(shop.api.get(f"/api/inventario/{p['id']}/existencias"))
    assert [(r["bodegaId"], r["stockActual"], r["stockReservado"]) for r in rows] == [
        (1, 2, 1),
        (norte["id"], 0, 0),
    ]
    with aws.acting_as("StockRepairFunction"):
        outcome = repair()
    assert (outcome["repaired"], outcome["failed"]) == (2, 0)
    rows = body(shop.api.get(f"/api/inventario/{p['id']}/existencias"))
    assert [(r["bodegaId"], r["stockActual"], r["stockReservado"]) for r in rows] == [
        (1, 2, 0),
        (norte["id"], 1, 1),
    ]
    assert shop.units(q) == (10, 1, 9)
    assert [r["pedidoId"] for r in shop.reservations(p)] == [lost_ship["id"]]
    with aws.acting_as("StockRepairFunction"):
        assert repair()["repaired"] == 0


def test_concurrent_ships_of_one_product_all_pass_and_its_alert_follows(shop):
    product = shop.product(stock=12, threshold=5)
    orders = [shop.order(product) for _ in range(10)]
    for order in orders:
        assert shop.move(order, "APROBADO").status_code == 200
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda o: shop.move(o, "EN_ENVIO"), orders))
    assert [r.status_code for r in answers] == [200] * 10
    assert shop.units(product) == (2, 0, 2)
    assert product["id"] in {p["id"] for p in body(shop.api.get("/api/inventario/alertas"))}


class Interleaved:
    """The inventory as the repair asks it, with an approval's retry run in between: the
    repair has read the reservation; the retry asks for the units (held already), then
    waits; the repair's give-back goes; then the retry writes its status. What a repair
    running beside a retried approval can do, step by step rather than by timing."""

    def __init__(self, moves: StockClient, retry):
        self._moves, self._retry = moves, retry
        self.asked, self.repaired = threading.Event(), threading.Event()
        self.retried = None

    def holding(self, after: int = 0):
        return self._moves.holding(after)

    def reservation(self, pedido_id: int):
        return self._moves.reservation(pedido_id)

    def balance(self, shard: int, after: int, settled_before: str):
        return self._moves.balance(shard, after, settled_before)

    def move(self, move, order, request_id=None, **kw):
        self.retried = ThreadPoolExecutor(1).submit(self._retry, self)
        assert self.asked.wait(10), "the retry never asked for its units"
        try:
            return self._moves.move(move, order, request_id, **kw)
        finally:
            self.repaired.set()

    def retry_asks(self, move, order, request_id=None):
        """The retry's own stock move, then it waits for the repair's move."""
        try:
            return self._moves.move(move, order, request_id)
        finally:
            self.asked.set()
            assert self.repaired.wait(10), "the repair never moved"


def test_a_repair_and_a_retried_approval_exclude_each_other(shop, repair):
    product = shop.product(stock=1)
    crashed, other = shop.order(product), shop.order(product)
    internal(shop, crashed, "reservar")  # the approval's status write never came
    with aws.acting_as("OrdersFunction"):
        orders = OrderRepository(Cloud.from_env())

    def retry(interleaved: Interleaved):
        stock = SimpleNamespace(move=interleaved.retry_asks)
        with aws.acting_as("OrdersFunction"):
            approve = ChangeStatus(
                order_id=crashed["id"],
                status="APROBADO",
                caller=Caller("ops", OPERATOR),
                at=utcnow(),
            )
            return change_status(orders, stock, approve)

    interleaved = Interleaved(repair._inventory, retry)
    repair._inventory = interleaved
    with aws.acting_as("StockRepairFunction"):
        repair()
    assert interleaved.retried.result().status == "APROBADO"
    # The approved order holds its unit: no other approval finds it available.
    assert [r["pedidoId"] for r in shop.reservations(product)] == [crashed["id"]]
    assert shop.units(product) == (1, 1, 0)
    refused = shop.move(other, "APROBADO")
    assert (refused.status_code, error_code(refused)) == (409, "INSUFFICIENT_STOCK")
