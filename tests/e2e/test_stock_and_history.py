"""Stock follows orders (docs/api.md#stock-follows-orders) and history
(docs/api.md#history), from outside: the real local stack over HTTP, where the orders
function invokes the inventory function for each move as on AWS, and the stock repair
runs on its schedule."""

import os
import random
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support import samples
from tests.support.processes import functions_of
from tests.support.samples import PRODUCT
from tests.support.stack_client import token
from tests.support.stack_process import PATIENT_STOCK_CHECK, StackClient, StackProcess
from tests.support.tokens import unregistered_user_id

# Far above the userIds registrations take: this stack is shared with files that register.
ORDER = {**samples.ORDER, "userId": unregistered_user_id()}


def product(http, stock: int, sku: str, threshold: int = 0) -> dict:
    made = {**PRODUCT, "sku": sku, "stockActual": stock, "umbralMinimo": threshold}
    response = http.gateway("POST", "/api/inventario", json=made)
    assert response.status_code == 201, response.text
    return response.json()


def order(http, item: dict, cantidad: int = 1) -> dict:
    sent = {**ORDER, "productoId": item["id"], "cantidad": cantidad}
    response = http.gateway("POST", "/api/pedidos", json=sent)
    assert response.status_code == 201, response.text
    return response.json()


def move(http, placed: dict, status: str):
    return http.gateway("PATCH", f"/api/pedidos/{placed['id']}/status?status={status}")


def units(http, item: dict) -> tuple[int, int, int]:
    found = http.gateway("GET", f"/api/inventario/{item['id']}").json()
    return found["stockActual"], found["stockReservado"], found["stockDisponible"]


def reservations(http, item: dict) -> list[dict]:
    response = http.gateway("GET", f"/api/inventario/{item['id']}/reservas")
    assert response.status_code == 200, response.text
    return response.json()


def test_twenty_concurrent_approvals_of_six_units_approve_six(http):
    item = product(http, 6, "E2E-STOCK-1")
    orders = [order(http, item) for _ in range(20)]
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda o: move(http, o, "APROBADO"), orders))
    assert sorted(r.status_code for r in answers) == [200] * 6 + [409] * 14
    assert {r.json()["error"] for r in answers if r.status_code == 409} == {"INSUFFICIENT_STOCK"}
    assert units(http, item) == (6, 6, 0)
    held = reservations(http, item)
    assert [r["pedidoId"] for r in held] == sorted(r["pedidoId"] for r in held)
    assert {r["pedidoId"] for r in held} == {
        o["id"] for o, r in zip(orders, answers, strict=True) if r.status_code == 200
    }


def test_after_a_burst_of_approvals_ships_and_cancels_the_reserved_units_are_the_reservations(
    http,
):
    item = product(http, 40, "E2E-STOCK-2", threshold=30)
    orders = [order(http, item, cantidad=random.randint(1, 3)) for _ in range(24)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda o: move(http, o, "APROBADO"), orders))
        # each approved order is shipped and cancelled at once: one of them wins
        racing = [
            pool.submit(move, http, o, status)
            for o in orders
            for status in ("EN_ENVIO", "CANCELADO")
        ]
        answers = [r.result() for r in racing]
    assert {r.status_code for r in answers} <= {200, 409}
    statuses = {
        o["id"]: http.gateway("GET", f"/api/pedidos/{o['id']}").json()["status"] for o in orders
    }
    shipped = sum(o["cantidad"] for o in orders if statuses[o["id"]] == "EN_ENVIO")
    assert "APROBADO" not in statuses.values()  # each approved order shipped or cancelled
    actual, reserved, available = units(http, item)
    assert (actual, reserved, available) == (40 - shipped, 0, 40 - shipped)
    assert reservations(http, item) == []
    if actual < 30:
        alerts = http.gateway("GET", "/api/inventario/alertas").json()
        assert item["id"] in {p["id"] for p in alerts}


def test_the_reserved_units_are_the_sum_of_the_reservations_while_orders_hold_them(http):
    item = product(http, 50, "E2E-STOCK-3")
    orders = [order(http, item, cantidad=random.randint(1, 4)) for _ in range(16)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda o: move(http, o, "APROBADO"), orders))
        list(
            pool.map(lambda o: move(http, o, random.choice(["EN_ENVIO", "CANCELADO"])), orders[::2])
        )
    held = reservations(http, item)
    actual, reserved, available = units(http, item)
    assert reserved == sum(r["cantidad"] for r in held)
    assert available == actual - reserved


def test_an_orders_history_from_outside(http):
    item = product(http, 5, "E2E-HIST-1")
    user_id = unregistered_user_id()
    customer = token("ROLE=customer", f"USER_ID={user_id}")
    placed = http.gateway(
        "POST",
        "/api/pedidos",
        json={**ORDER, "userId": user_id, "productoId": item["id"]},
        headers={"Authorization": f"Bearer {customer}"},
    ).json()
    move(http, placed, "APROBADO")
    http.gateway(
        "PATCH",
        f"/api/pedidos/{placed['id']}/status?status=CANCELADO",
        headers={"Authorization": f"Bearer {customer}"},
    )
    history = http.gateway("GET", f"/api/pedidos/{placed['id']}/historial").json()
    assert [(e["status"], e["rol"]) for e in history] == [
        ("PENDIENTE", "customer"),
        ("APROBADO", "operator"),
        ("CANCELADO", "customer"),
    ]
    assert history[0]["fecha"] == placed["creadoEn"]
    assert units(http, item) == (5, 0, 5)
    someone_else = token("ROLE=customer", f"USER_ID={user_id + 1}")
    hidden = http.gateway(
        "GET",
        f"/api/pedidos/{placed['id']}/historial",
        headers={"Authorization": f"Bearer {someone_else}"},
    )
    assert (hidden.status_code, hidden.json()["error"]) == (404, "ORDER_NOT_FOUND")


def test_an_order_of_two_lines_shipped_in_two_parts_ends_delivered(http):
    """Shipments of parts (docs/api.md#shipments-of-parts) through the stack's own
    functions: each part's units leave with it, the order follows by itself."""
    caja, cinta = product(http, 5, "E2E-PARTS-1"), product(http, 5, "E2E-PARTS-2")
    lines = [{"productoId": caja["id"], "cantidad": 3}, {"productoId": cinta["id"], "cantidad": 2}]
    sent = {k: v for k, v in ORDER.items() if k not in ("productoId", "cantidad", "total")}
    placed = http.gateway("POST", "/api/pedidos", json={**sent, "lineas": lines})
    assert placed.status_code == 201, placed.text
    placed = placed.json()
    assert move(http, placed, "APROBADO").status_code == 200
    base = {
        "pedidoId": placed["id"],
        "tipoEnvio": "EXPRESS",
        "transportista": "DHL",
        "destino": "Lima",
    }
    parts = []
    for carried in ([{"linea": 1, "cantidad": 3}], [{"linea": 2, "cantidad": 2}]):
        made = http.gateway("POST", "/api/envios", json={**base, "lineas": carried})
        assert made.status_code == 201, made.text
        assert made.json()["bodegaId"] == 1
        parts.append(made.json())
    first = http.gateway("PATCH", f"/api/envios/{parts[0]['id']}/status?status=EN_RUTA")
    assert first.status_code == 200, first.text
    assert units(http, caja) == (2, 0, 2) and units(http, cinta) == (5, 2, 3)
    assert http.gateway("GET", f"/api/pedidos/{placed['id']}").json()["status"] == "EN_ENVIO"
    for part in parts:
        done = http.gateway("PATCH", f"/api/envios/{part['id']}/status?status=ENTREGADO")
        assert done.status_code == 200, done.text
    assert units(http, cinta) == (3, 0, 3)
    delivered = http.gateway("GET", f"/api/pedidos/{placed['id']}").json()
    assert delivered["status"] == "ENTREGADO"
    assert [(x["cantidadEnviada"], x["cantidadEntregada"]) for x in delivered["lineas"]] == [
        (3, 3),
        (2, 2),
    ]


# -- a crash between the reservation and the order's write ----------------------------------


def environments(stack: StackProcess, function: str) -> list[int]:
    """The pids of the function's execution environments."""
    return functions_of(stack.lambda_url)[function]["environments"]


@pytest.fixture
def repairing_stack():
    """A stack of its own whose repair runs every 2 s and takes any move older than 2 s
    for a crash's leftover; one environment per function, so a stopped one is the one."""
    running = StackProcess(
        {
            **PATIENT_STOCK_CHECK,
            "LOCAL_SCHEDULE_SECONDS": "2",
            "STOCK_REPAIR_GRACE_SECONDS": "2",
            "LAMBDA_MAX_ENVIRONMENTS": "1",
        }
    ).start()
    yield running
    running.stop()


def test_a_reservation_left_by_a_dead_orders_function_is_given_back(repairing_stack):
    stack = repairing_stack
    http = StackClient(stack, token())
    item = product(http, 5, "E2E-CRASH-1")
    placed = order(http, item, cantidad=2)  # the inventory's environment is up
    assert http.gateway("GET", f"/api/pedidos/{placed['id']}").status_code == 200
    (inventory,) = environments(stack, "InventoryFunction")
    os.kill(inventory, signal.SIGSTOP)  # the reservation waits in it
    answer: list = []
    patching = threading.Thread(target=lambda: answer.append(move(http, placed, "APROBADO")))
    patching.start()
    time.sleep(1.5)  # the orders function is waiting on its invoke of the inventory
    for pid in environments(stack, "OrdersFunction"):
        os.kill(pid, signal.SIGKILL)  # it dies before its status write
    os.kill(inventory, signal.SIGCONT)  # the reservation is made, for no one
    patching.join(30)
    assert answer and answer[0].status_code >= 500  # the client saw no approval
    deadline = time.monotonic() + 60
    seen_reserved = False
    while time.monotonic() < deadline:
        seen_reserved |= units(http, item)[1] == 2
        if seen_reserved and units(http, item) == (5, 0, 5):
            break
        time.sleep(0.5)
    assert seen_reserved, "the crash left no reservation: the test did not crash in between"
    assert units(http, item) == (5, 0, 5), stack.output()[-3000:]
    assert reservations(http, item) == []
    assert http.gateway("GET", f"/api/pedidos/{placed['id']}").json()["status"] == "PENDIENTE"
    # and the order is approved as if nothing had happened, its units reserved once
    assert move(http, placed, "APROBADO").status_code == 200
    assert units(http, item) == (5, 2, 3)
