"""Orders of several lines over several warehouses (docs/api.md#orders-of-several-lines)
through the gateway app against emulated DynamoDB: placing them (one batch stock check),
approving every line or none by a strategy, the units leaving and coming back per
warehouse, and many approvals racing on the same units."""

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest

from tests.support.api import body
from tests.support.endpoints import point
from tests.support.fakes import closed_port_url
from tests.support.samples import ORDER, PRODUCT

CUSTOMER = {k: v for k, v in ORDER.items() if k not in ("cantidad", "total")}


class Depot:
    def __init__(self, api):
        self.api = api

    def warehouse(self, codigo: str, prioridad: int = 100) -> int:
        made = self.api.post(
            "/api/bodegas", {"codigo": codigo, "nombre": codigo, "prioridad": prioridad}
        )
        assert made.status_code == 201, made.body
        return body(made)["id"]

    def product(self, sku: str, units: dict[int, int], price: str = "2.50") -> dict:
        sent = {**PRODUCT, "sku": sku, "precioUnitario": Decimal(price), "stockActual": 0}
        made = body(self.api.post("/api/inventario", sent))
        for bodega, count in units.items():
            answer = self.api.put(
                f"/api/inventario/{made['id']}/existencias/{bodega}", {"stockActual": count}
            )
            assert answer.status_code == 200, answer.body
        return body(self.api.get(f"/api/inventario/{made['id']}"))

    def place(self, lines: list[dict], **fields):
        return self.api.post("/api/pedidos", {**CUSTOMER, "lineas": lines, **fields})

    def order(self, lines: list[dict], **fields) -> dict:
        placed = self.place(lines, **fields)
        assert placed.status_code == 201, placed.body
        return body(placed)

    def move(self, order: dict, status: str):
        return self.api.patch(f"/api/pedidos/{order['id']}/status?status={status}")

    def rows(self, product: dict) -> dict[int, tuple[int, int, int]]:
        found = body(self.api.get(f"/api/inventario/{product['id']}/existencias"))
        return {
            r["bodegaId"]: (r["stockActual"], r["stockReservado"], r["stockDisponible"])
            for r in found
        }

    def units(self, product: dict) -> tuple[int, int, int]:
        p = body(self.api.get(f"/api/inventario/{product['id']}"))
        return p["stockActual"], p["stockReservado"], p["stockDisponible"]

    def held(self, order: dict) -> list[list[tuple[int, int]]]:
        found = body(self.api.get(f"/api/pedidos/{order['id']}"))
        return [
            [(a["bodegaId"], a["cantidad"]) for a in line["asignaciones"]]
            for line in found["lineas"]
        ]


@pytest.fixture
def depot(order_events, gateway) -> Depot:
    """The gateway app, its order events landing in a recorder (built after it)."""
    return Depot(gateway())


def test_an_order_of_several_lines_answers_what_was_sold_at_which_price(depot):
    caja = depot.product("CAJA", {1: 10}, "2.50")
    cinta = depot.product("CINTA", {1: 10}, "1.10")
    order = depot.order(
        [{"productoId": caja["id"], "cantidad": 3}, {"productoId": cinta["id"], "cantidad": 2}]
    )
    assert (order["productoId"], order["cantidad"], order["total"]) == (None, None, Decimal("9.70"))
    assert order["estrategia"] == "PRIORIDAD" and order["status"] == "PENDIENTE"
    assert order["lineas"] == [
        {
            "linea": 1,
            "productoId": caja["id"],
            "sku": "CAJA",
            "nombre": "Caja",
            "cantidad": 3,
            "precioUnitario": Decimal("2.50"),
            "bodegaId": None,
            "asignaciones": [],
            "cantidadEnviada": 0,
            "cantidadEntregada": 0,
            "cantidadDevuelta": 0,
        },
        {
            "linea": 2,
            "productoId": cinta["id"],
            "sku": "CINTA",
            "nombre": "Caja",
            "cantidad": 2,
            "precioUnitario": Decimal("1.10"),
            "bodegaId": None,
            "asignaciones": [],
            "cantidadEnviada": 0,
            "cantidadEntregada": 0,
            "cantidadDevuelta": 0,
        },
    ]
    # a price changed later changes nothing of the order; a total sent is kept as sent
    depot.api.put(
        f"/api/inventario/{caja['id']}",
        {**PRODUCT, "sku": "CAJA", "precioUnitario": 9, "stockActual": 10},
    )
    assert body(depot.api.get(f"/api/pedidos/{order['id']}"))["lineas"][0][
        "precioUnitario"
    ] == Decimal("2.50")
    sent = depot.order([{"productoId": caja["id"], "cantidad": 1}], total=100)
    assert (sent["total"], sent["productoId"], sent["cantidad"]) == (100, caja["id"], 1)
    # the contract's form: its one line, what its product is as the batch check says
    contract = body(depot.api.post("/api/pedidos", {**ORDER, "productoId": cinta["id"]}))
    assert contract["lineas"][0]["sku"] == "CINTA" and contract["lineas"][0]["cantidad"] == 1
    assert body(depot.api.get("/api/pedidos?status=PENDIENTE"))[0]["lineas"] == order["lineas"]


def test_an_order_of_five_lines_is_one_stock_check_through_the_breaker(gateway, monkeypatch):
    """The inventory down: each order of five lines counts one failure on the breaker, so
    with three allowed the first two get the fallback and only the third opens it (five
    checks an order would have opened it on the first)."""
    point(monkeypatch, "LAMBDA", closed_port_url())
    api = gateway(INVENTORY_FUNCTION="InventoryFunction", BREAKER_FAIL_MAX="3")
    lines = [{"productoId": i, "cantidad": 1} for i in range(1, 6)]
    answers = [api.post("/api/pedidos", {**CUSTOMER, "lineas": lines}) for _ in range(3)]
    assert [(a.status_code, body(a)["error"]) for a in answers] == [
        (400, "STOCK_NOT_CONFIRMED"),
        (400, "STOCK_NOT_CONFIRMED"),
        (503, "INVENTORY_UNAVAILABLE"),
    ]
    assert body(api.get("/api/pedidos")) == []


@pytest.mark.parametrize(
    ("sent", "fields"),
    [
        ({"lineas": []}, ["lineas"]),
        ({"lineas": [{"productoId": 1, "cantidad": 1}] * 51}, ["lineas"]),
        ({"lineas": "x"}, ["lineas"]),
        ({"lineas": [{"productoId": 1, "cantidad": 1}], "productoId": 1}, ["lineas"]),
        (
            {"lineas": [{"productoId": 1, "cantidad": 1}, {"productoId": 1, "cantidad": 2}]},
            ["lineas[1].productoId"],
        ),
        (
            {"lineas": [{"productoId": 1, "cantidad": 0}, {"productoId": "2", "cantidad": 1}]},
            ["lineas[0].cantidad", "lineas[1].productoId"],
        ),
        ({"lineas": [{"productoId": 1, "cantidad": 1, "bodegaId": 0}]}, ["lineas[0].bodegaId"]),
        ({"lineas": [7]}, ["lineas[0]"]),
        (
            {"lineas": [{"productoId": 1, "cantidad": 1}], "estrategia": "MAS_BARATO"},
            ["estrategia"],
        ),
        ({"lineas": [{"productoId": 1, "cantidad": 1}], "total": -1}, ["total"]),
    ],
)
def test_a_bad_order_of_lines_is_refused_naming_each_field(depot, sent, fields):
    refused = depot.api.post("/api/pedidos", {**CUSTOMER, **sent})
    assert refused.status_code == 400, refused.body
    assert body(refused)["error"] == "VALIDATION_ERROR"
    assert [d["field"] for d in body(refused)["details"]] == fields
    assert body(depot.api.get("/api/pedidos")) == []


def test_lines_short_of_stock_or_of_unknown_products_or_warehouses_save_nothing(depot):
    caja = depot.product("CAJA", {1: 2})
    short = depot.place(
        [{"productoId": caja["id"], "cantidad": 1}, {"productoId": caja["id"] + 9, "cantidad": 1}]
    )
    assert (short.status_code, body(short)["error"]) == (400, "PRODUCT_NOT_FOUND")
    assert [d["field"] for d in body(short)["details"]] == ["lineas[1].productoId"]
    many = depot.place([{"productoId": caja["id"], "cantidad": 3}])
    assert (many.status_code, body(many)["error"]) == (400, "INSUFFICIENT_STOCK")
    assert [d["field"] for d in body(many)["details"]] == ["lineas[0].cantidad"]
    nowhere = depot.place([{"productoId": caja["id"], "cantidad": 1, "bodegaId": 99}])
    assert (nowhere.status_code, body(nowhere)["error"]) == (400, "VALIDATION_ERROR")
    assert body(nowhere)["details"][0]["field"] == "lineas[0].bodegaId"
    norte = depot.warehouse("NORTE")
    pinned = depot.place([{"productoId": caja["id"], "cantidad": 1, "bodegaId": norte}])
    assert body(pinned)["error"] == "INSUFFICIENT_STOCK"  # none in NORTE
    assert body(depot.api.get("/api/pedidos")) == []


def test_an_approval_takes_by_priority_and_reserves_every_line_or_none(depot):
    norte = depot.warehouse("NORTE", prioridad=10)
    caja = depot.product("CAJA", {1: 5, norte: 2})
    cinta = depot.product("CINTA", {1: 1})
    first = depot.order(
        [{"productoId": caja["id"], "cantidad": 3}, {"productoId": cinta["id"], "cantidad": 1}]
    )
    second = depot.order(
        [{"productoId": caja["id"], "cantidad": 1}, {"productoId": cinta["id"], "cantidad": 1}]
    )
    approved = depot.move(first, "APROBADO")
    assert approved.status_code == 200
    assert depot.held(first) == [[(1, 1), (norte, 2)], [(1, 1)]]
    assert depot.rows(caja) == {1: (5, 1, 4), norte: (2, 2, 0)}
    assert depot.units(caja) == (7, 3, 4)
    reservas = body(depot.api.get(f"/api/inventario/{caja['id']}/reservas"))
    assert [(r["pedidoId"], r["linea"], r["bodegaId"], r["cantidad"]) for r in reservas] == [
        (first["id"], 1, 1, 1),
        (first["id"], 1, norte, 2),
    ]
    refused = depot.move(second, "APROBADO")
    assert (refused.status_code, body(refused)["error"]) == (409, "INSUFFICIENT_STOCK")
    assert body(refused)["details"] == [
        {"field": "lineas[1].cantidad", "message": f"only 0 of product {cinta['id']} available"}
    ]
    assert body(depot.api.get(f"/api/pedidos/{second['id']}"))["status"] == "PENDIENTE"
    assert depot.units(caja) == (7, 3, 4)  # its first line reserved nothing either
    assert depot.held(second) == [[], []]


def test_the_fewest_warehouses_or_the_one_a_line_names(depot):
    norte, sur = depot.warehouse("NORTE", 10), depot.warehouse("SUR", 20)
    caja = depot.product("CAJA", {norte: 2, sur: 5})
    cinta = depot.product("CINTA", {norte: 1, sur: 5})
    lines = [{"productoId": caja["id"], "cantidad": 3}, {"productoId": cinta["id"], "cantidad": 2}]
    fewest = depot.order(lines, estrategia="MENOS_BODEGAS")
    assert depot.move(fewest, "APROBADO").status_code == 200
    assert depot.held(fewest) == [[(sur, 3)], [(sur, 2)]]
    pinned = depot.order([{"productoId": caja["id"], "cantidad": 1, "bodegaId": sur}])
    depot.move(pinned, "APROBADO")
    assert depot.held(pinned) == [[(sur, 1)]]
    assert body(depot.api.get(f"/api/pedidos/{pinned['id']}"))["lineas"][0]["bodegaId"] == sur


def test_units_leave_and_come_back_per_warehouse_and_the_lines_count_them(depot):
    norte = depot.warehouse("NORTE", prioridad=10)
    caja = depot.product("CAJA", {1: 5, norte: 2})
    cinta = depot.product("CINTA", {1: 4})
    lines = [{"productoId": caja["id"], "cantidad": 3}, {"productoId": cinta["id"], "cantidad": 2}]
    shipped, cancelled = depot.order(lines), depot.order(lines)
    depot.move(shipped, "APROBADO")
    depot.move(cancelled, "APROBADO")
    assert depot.rows(caja) == {1: (5, 4, 1), norte: (2, 2, 0)}
    on_its_way = body(depot.move(shipped, "EN_ENVIO"))
    assert [line["cantidadEnviada"] for line in on_its_way["lineas"]] == [3, 2]
    assert depot.rows(caja) == {1: (4, 3, 1), norte: (0, 0, 0)}
    cancelled_now = body(depot.move(cancelled, "CANCELADO"))
    assert [line["asignaciones"] for line in cancelled_now["lineas"]] == [[], []]
    assert depot.rows(caja) == {1: (4, 0, 4), norte: (0, 0, 0)}
    assert depot.rows(cinta) == {1: (2, 0, 2)}
    delivered = body(depot.move(shipped, "ENTREGADO"))
    assert [
        (line["cantidadEnviada"], line["cantidadEntregada"], line["cantidadDevuelta"])
        for line in delivered["lineas"]
    ] == [
        (3, 3, 0),
        (2, 2, 0),
    ]
    assert depot.units(caja) == (4, 0, 4)


def test_concurrent_approvals_over_two_warehouses_approve_exactly_what_there_is(depot):
    """k units of P over two warehouses, N concurrent two-line orders of one P and one Q
    (plentiful): exactly min(N, k) approved, each wholly reserved or not at all."""
    norte = depot.warehouse("NORTE", prioridad=10)
    k, n = 5, 12
    p = depot.product("P", {1: 2, norte: 3})
    q = depot.product("Q", {1: 100})
    orders = [
        depot.order(
            [{"productoId": p["id"], "cantidad": 1}, {"productoId": q["id"], "cantidad": 1}]
        )
        for _ in range(n)
    ]
    with ThreadPoolExecutor(n) as pool:
        answers = list(pool.map(lambda o: depot.move(o, "APROBADO"), orders))
    assert sorted(a.status_code for a in answers) == [200] * min(n, k) + [409] * (n - min(n, k))
    assert {body(a)["error"] for a in answers if a.status_code == 409} == {"INSUFFICIENT_STOCK"}
    approved = {o["id"] for o, a in zip(orders, answers, strict=True) if a.status_code == 200}
    for o in orders:
        shown = body(depot.api.get(f"/api/pedidos/{o['id']}"))
        units = [sum(a["cantidad"] for a in line["asignaciones"]) for line in shown["lineas"]]
        assert units == ([1, 1] if o["id"] in approved else [0, 0]), shown
        assert shown["status"] == ("APROBADO" if o["id"] in approved else "PENDIENTE")
    assert depot.rows(p) == {1: (2, 2, 0), norte: (3, 3, 0)}
    assert depot.units(q) == (100, k, 100 - k)
    for product in (p, q):
        reservas = body(depot.api.get(f"/api/inventario/{product['id']}/reservas"))
        assert {r["pedidoId"] for r in reservas} == approved


def test_an_order_of_fifty_lines_over_three_warehouses_is_one_transaction(depot):
    """Each product item holds all its warehouses: fifty lines are fifty lines and fifty
    products in the ledger's transaction, DynamoDB's hundred, whatever the warehouses."""
    norte, sur = depot.warehouse("NORTE", 10), depot.warehouse("SUR", 20)
    products = [depot.product(f"P-{i}", {norte: 1, sur: 1, 1: 1}) for i in range(50)]
    lines = [{"productoId": p["id"], "cantidad": 3} for p in products]
    order = depot.order(lines)
    assert depot.move(order, "APROBADO").status_code == 200
    assert all(len(held) == 3 for held in depot.held(order))
    assert depot.move(order, "EN_ENVIO").status_code == 200
    assert all(depot.units(p) == (0, 0, 0) for p in products[:3])


def test_approvals_transfers_and_take_outs_racing_never_over_reserve_or_half_reserve(depot):
    """Approvals of two-line orders race transfers of P's units between its two
    warehouses, then take-outs race more transfers: no warehouse ever answers more
    reserved than it has, every order is wholly reserved or not at all, and the units
    are neither made nor lost. A transfer keeps P's total available as it was, so an
    approval refused for want of P saw every unit of P reserved."""
    norte = depot.warehouse("NORTE-R", prioridad=10)
    k, n = 5, 10
    p = depot.product("P-R", {1: 2, norte: 3})
    q = depot.product("Q-R", {1: 100})
    orders = [
        depot.order(
            [{"productoId": p["id"], "cantidad": 1}, {"productoId": q["id"], "cantidad": 1}]
        )
        for _ in range(n)
    ]

    def transfer(i: int):
        desde, hacia = (1, norte) if i % 2 else (norte, 1)
        sent = {"desde": desde, "hacia": hacia, "cantidad": 1}
        return depot.api.post(f"/api/inventario/{p['id']}/transferencias", sent)

    tasks = [lambda o=o: depot.move(o, "APROBADO") for o in orders]
    tasks += [lambda i=i: transfer(i) for i in range(8)]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda task: task(), tasks))
    approvals, transfers = answers[:n], answers[n:]
    assert {a.status_code for a in transfers} <= {200, 409}
    refused = {body(a)["error"] for a in approvals if a.status_code != 200}
    assert refused <= {"INSUFFICIENT_STOCK", "CONCURRENT_UPDATE"}
    approved = [o for o, a in zip(orders, approvals, strict=True) if a.status_code == 200]
    assert len(approved) <= k
    if "INSUFFICIENT_STOCK" in refused:
        assert len(approved) == k
    _assert_whole_and_counted(depot, orders, p, {o["id"] for o in approved})

    tasks = [lambda o=o: depot.move(o, "EN_ENVIO") for o in approved]
    tasks += [lambda i=i: transfer(i) for i in range(8)]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda task: task(), tasks))
    assert all(a.status_code == 200 for a in answers[: len(approved)]), answers
    rows = depot.rows(p)
    assert all(reserved == 0 and available >= 0 for _, reserved, available in rows.values())
    assert sum(actual for actual, _, _ in rows.values()) == k - len(approved)
    assert depot.units(q) == (100 - len(approved), 0, 100 - len(approved))


def _assert_whole_and_counted(depot, orders: list[dict], p: dict, approved: set[int]) -> None:
    """Each order wholly reserved or not at all; each warehouse's reserved the sum of
    what the orders hold there, its available on hand less reserved, never below 0."""
    held: dict[int, int] = {}
    for o in orders:
        shown = body(depot.api.get(f"/api/pedidos/{o['id']}"))
        units = [sum(a["cantidad"] for a in line["asignaciones"]) for line in shown["lineas"]]
        assert units == ([1, 1] if o["id"] in approved else [0, 0]), shown
        for a in shown["lineas"][0]["asignaciones"]:
            held[a["bodegaId"]] = held.get(a["bodegaId"], 0) + a["cantidad"]
    rows = depot.rows(p)
    for bodega, (actual, reserved, available) in rows.items():
        assert reserved == held.get(bodega, 0), (bodega, rows, held)
        assert available == actual - reserved >= 0, rows
    assert sum(actual for actual, _, _ in rows.values()) == 5
