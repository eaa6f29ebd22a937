"""Rerunnable benchmark: what a webhook event adds to the request that causes it, and how
many deliveries a second the local stack makes.

Usage: `make bench-webhooks` (or .venv/bin/python bench/webhooks.py [--orders N]
[--rounds R] [--endpoints E] [--burst B]). It starts the local stack on free ports (data
in memory) and runs receivers of its own on 127.0.0.1.

1. The request. Each round places N orders one after another in each of three
   conditions: no endpoint subscribed; one endpoint subscribed to `pedido.creado`
   answering 200; one that never answers (every delivery held its 10 s). The order of
   the conditions rotates from round to round; it prints the median time of an order
   in each (over every round's orders) and its ratio to no endpoint: once with the
   orders a second apart (--gap: each order's event is delivered before the next is
   placed, so only the request's own path is timed), once back to back (the deliveries
   then share the laptop's two cores with the next orders).
2. Deliveries a second. E endpoints subscribed to `pedido.creado`, B orders placed by 4
   clients at once: B x E deliveries. It prints how long the orders took, the time from
   the first order's answer to the last delivery received, and the deliveries a second
   over that time and over the time after the last order was answered (the backlog).
"""

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from tests.support.stack_process import PATIENT_STOCK_CHECK, StackClient, StackProcess
from tests.support.webhook_receiver import HANG, Receiver

ORDER = {
    "userId": 7,
    "userEmail": "bench@example.com",
    "clienteNombre": "Bench",
    "total": 10,
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "cantidad": 1,
}


def place(http: StackClient, product_id: int) -> float:
    started = time.perf_counter()
    answer = http.gateway("POST", "/api/pedidos", json={**ORDER, "productoId": product_id})
    assert answer.status_code == 201, answer.text
    return time.perf_counter() - started


def subscribe(http: StackClient, receiver: Receiver) -> int:
    answer = http.gateway(
        "POST", "/api/webhooks", json={"url": receiver.url, "eventos": ["pedido.creado"]}
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def condition(http: StackClient, product_id: int, orders: int, answer, gap: float) -> list[float]:
    """`orders` timed orders with no endpoint (answer None) or one answering `answer`,
    `gap` seconds apart."""
    receiver = Receiver(then=answer) if answer is not None else None
    ident = subscribe(http, receiver) if receiver else None
    try:
        place(http, product_id)  # the first order after a change of endpoints: untimed
        taken = []
        for _ in range(orders):
            time.sleep(gap)
            taken.append(place(http, product_id))
        return taken
    finally:
        if ident is not None:
            http.gateway("DELETE", f"/api/webhooks/{ident}")
        if receiver is not None:
            receiver.stop()


def request_cost(http: StackClient, product_id: int, orders: int, rounds: int, gap: float) -> None:
    names = {None: "no endpoint", 200: "an endpoint answering 200", HANG: "an endpoint that hangs"}
    kinds = list(names)
    times: dict = {kind: [] for kind in kinds}
    for number in range(rounds):
        for kind in kinds[number % 3 :] + kinds[: number % 3]:
            times[kind] += condition(http, product_id, orders, kind, gap)
    base = statistics.median(times[None])
    spacing = f"{gap:g} s apart" if gap else "back to back"
    print(
        f"\nPOST /api/pedidos, {rounds} rounds of {orders} orders a condition, one client, "
        f"{spacing}:\n"
    )
    print("| condition | orders | p50 ms | p95 ms | ratio to no endpoint (p50) |")
    print("|---|---|---|---|---|")
    for kind in kinds:
        taken = sorted(times[kind])
        p95 = taken[int(len(taken) * 0.95) - 1]
        median = statistics.median(taken)
        print(
            f"| {names[kind]} | {len(taken)} | {median * 1000:.1f} | {p95 * 1000:.1f} | "
            f"{median / base:.2f} |"
        )


def delivery_rate(http: StackClient, product_id: int, endpoints: int, burst: int) -> None:
    receivers = [Receiver() for _ in range(endpoints)]
    idents = [subscribe(http, receiver) for receiver in receivers]
    try:
        place(http, product_id)  # the events' and deliveries' environments warm
        for receiver in receivers:
            receiver.wait_for(1, timeout=60)
        started = time.time()  # the receivers stamp deliveries with time.time()
        with ThreadPoolExecutor(4) as clients:
            list(clients.map(lambda _: place(http, product_id), range(burst)))
        placed = time.time()
        for receiver in receivers:
            receiver.wait_for(burst + 1, timeout=600)
        times = [d.at for receiver in receivers for d in receiver.received if d.at >= started]
    finally:
        for ident in idents:
            http.gateway("DELETE", f"/api/webhooks/{ident}")
        for receiver in receivers:
            receiver.stop()
    done = max(times)
    after = [at for at in times if at > placed]
    print(
        f"\n{burst} orders by 4 clients, {endpoints} endpoints subscribed: {len(times)} "
        f"deliveries. The orders took {placed - started:.1f} s ({burst / (placed - started):.1f}"
        f" orders/s); the last delivery came {done - started:.1f} s after the first order was "
        f"sent: {len(times) / (done - started):.1f} deliveries/s overall; {len(after)} of them "
        f"after the last order's answer, in {done - placed:.1f} s "
        f"({len(after) / max(done - placed, 1e-9):.1f}/s)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--endpoints", type=int, default=5)
    parser.add_argument("--burst", type=int, default=100)
    parser.add_argument("--gap", type=float, default=1.0)
    args = parser.parse_args()
    started = time.perf_counter()
    stack = StackProcess(PATIENT_STOCK_CHECK).start()
    print(f"Local stack ready in {time.perf_counter() - started:.1f} s")
    try:
        http = StackClient(stack, stack.token)
        product = http.gateway(
            "POST",
            "/api/inventario",
            json={
                "sku": "BENCH-WH",
                "nombre": "Caja",
                "precioUnitario": 1,
                "stockActual": 10**9,
                "umbralMinimo": 0,
            },
        ).json()
        for _ in range(5):
            place(http, product["id"])  # every environment an order needs, warm
        # Spaced: each order's events and deliveries are done before the next, so what is
        # timed is the request's own path. Back to back: they share the laptop's cores
        # with the next orders (on AWS they run on other machines).
        request_cost(http, product["id"], args.orders, args.rounds, args.gap)
        request_cost(http, product["id"], args.orders, args.rounds, 0)
        delivery_rate(http, product["id"], args.endpoints, args.burst)
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
