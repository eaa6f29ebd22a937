"""GET /api/dashboard on the running local stack, from outside (docs/api.md#dashboard):
every figure equal to what the lists show once the write that changed it is answered
(waited for: tests.support.dashboard.AGREES_WITHIN_SECONDS), a write at a time and under
16 concurrent writers; customers refused.

The stack is the session's (tests/e2e/conftest.py): what other tests of this process
wrote is in its lists and its figures alike, and nothing writes while these compare."""

import random
import time
from concurrent.futures import ThreadPoolExecutor

from tests.support.dashboard import comparable, figures, settled, until
from tests.support.tokens import make_token, unregistered_user_id

WRITERS = 16
# No registration takes it (on a shared stack one took the small id used before).
USER_ID = unregistered_user_id()


def get(http):
    return lambda path, params: http.gateway("GET", path, params=params)


def made(http, path: str, sent: dict) -> dict:
    answer = http.gateway("POST", path, json=sent)
    assert answer.status_code == 201, answer.text
    return answer.json()


def product(http, sku: str, stock: int = 1000, threshold: int = 5, price=2.5) -> dict:
    return made(
        http,
        "/api/inventario",
        {
            "sku": sku,
            "nombre": "Caja",
            "precioUnitario": price,
            "stockActual": stock,
            "umbralMinimo": threshold,
        },
    )


def order(http, product_id: int, total=10) -> dict:
    return made(
        http,
        "/api/pedidos",
        {
            "userId": USER_ID,
            "userEmail": "dash@example.com",
            "clienteNombre": "Dash",
            "total": total,
            "tipoPedido": "NACIONAL",
            "destino": "Lima",
            "productoId": product_id,
            "cantidad": 1,
        },
    )


def shipment(http, order_id: int, kind: str = "EXPRESS") -> dict:
    return made(
        http,
        "/api/envios",
        {"pedidoId": order_id, "tipoEnvio": kind, "transportista": "DHL", "destino": "Lima"},
    )


def moved(http, path: str, status: str) -> None:
    answer = http.gateway("PATCH", f"{path}/status", params={"status": status})
    assert answer.status_code == 200, answer.text


def agrees(http) -> dict:
    """The dashboard once it agrees with the lists (each round of the comparison reads
    every list, and the delivered shipments' histories)."""
    shown, wanted, _ = settled(get(http))
    assert comparable(figures(shown)) == comparable(wanted)
    return shown


def test_customers_are_refused(stack, http):
    customer = make_token(role="customer", userId=42, exp=int(time.time()) + 600)
    answer = http.gateway("GET", "/api/dashboard", headers={"Authorization": f"Bearer {customer}"})
    assert answer.status_code == 403
    assert answer.json()["error"] == "FORBIDDEN"
    assert http.gateway("GET", "/api/dashboard", auth=False).status_code == 401


def test_each_write_shows_in_the_figures(http):
    first = product(http, "DASH-1", stock=20, threshold=5, price=3)
    placed = [order(http, first["id"], total) for total in (10, 19.99, 5.5)]
    sent = shipment(http, placed[0]["id"])
    shown = agrees(http)
    assert shown["pedidos"]["ultimos"][0]["id"] == placed[-1]["id"]
    assert shown["envios"]["ultimos"][0]["id"] == sent["id"]
    # Every service answers (asked again if a question took past its 2 s: a busy machine).
    services = until(
        lambda: http.gateway("GET", "/api/dashboard").json()["servicios"],
        lambda found: set(found.values()) == {"UP"},
        30,
    )
    assert set(services.values()) == {"UP"}
    moved(http, f"/api/pedidos/{placed[0]['id']}", "APROBADO")
    agrees(http)
    moved(http, f"/api/pedidos/{placed[1]['id']}", "CANCELADO")  # out of its day's total
    agrees(http)
    moved(http, f"/api/envios/{sent['id']}", "ENTREGADO")
    assert agrees(http)["envios"]["entregadosATiempo"] is not None
    moved(http, f"/api/envios/{sent['id']}", "EN_RUTA")  # back out of ENTREGADO
    agrees(http)
    replaced = {**first, "stockActual": 2}  # into the alert, its stock's value down
    assert http.gateway("PUT", f"/api/inventario/{first['id']}", json=replaced).status_code == 200
    agrees(http)


def test_under_16_concurrent_writers_the_figures_agree_after_the_last_answer(http):
    products = [product(http, f"DASH-W{n}", stock=10**6, threshold=0) for n in range(4)]

    def write(writer: int) -> None:
        rng = random.Random(writer)
        for step in range(4):
            chosen = products[(writer + step) % len(products)]
            placed = order(http, chosen["id"], total=rng.choice((1, 2.5, 10)))
            path = f"/api/pedidos/{placed['id']}"
            if step % 2:
                moved(http, path, "CANCELADO")
                continue
            moved(http, path, "APROBADO")
            sent = shipment(http, placed["id"], rng.choice(("EXPRESS", "TERRESTRE")))
            moved(http, f"/api/envios/{sent['id']}", rng.choice(("EN_RUTA", "ENTREGADO")))
            recount = {**chosen, "stockActual": 10**6 - rng.randrange(100)}
            answer = http.gateway("PUT", f"/api/inventario/{chosen['id']}", json=recount)
            assert answer.status_code == 200, answer.text

    with ThreadPoolExecutor(WRITERS) as pool:
        list(pool.map(write, range(WRITERS)))
    shown, wanted, took = settled(get(http))
    assert comparable(figures(shown)) == comparable(wanted), f"still apart after {took:.1f} s"


def test_the_answer_is_the_documented_shape(http):
    answer = http.gateway("GET", "/api/dashboard")
    body = answer.json()
    assert answer.headers["Content-Type"] == "application/json; charset=utf-8"
    assert set(body) == {
        "bodegas",
        "productos",
        "pedidos",
        "envios",
        "devoluciones",
        "ventasPorDia",
        "servicios",
        "generadoEn",
    }
    assert set(body["devoluciones"]) == {"abiertas"}
    assert len(body["ventasPorDia"]) == 14
    assert set(body["pedidos"]["porEstado"]) == {
        "PENDIENTE",
        "APROBADO",
        "EN_ENVIO",
        "ENTREGADO",
        "CANCELADO",
    }
