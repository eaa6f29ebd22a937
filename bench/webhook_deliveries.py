"""Rerunnable benchmark: what a webhook event adds to the request that causes it, and how
many deliveries a second the local stack makes.

Usage: `make bench-webhooks` (or .venv/bin/python bench/webhook_deliveries.py [--orders N]
[--rounds R] [--endpoints E] [--burst B] [--slow S] [--slow-burst K] [--only-slow]). It
starts the local stack on free ports (data in memory) and runs receivers of its own on
127.0.0.1.

1. The request. Each round places N orders one after another in each of three
   conditions: no endpoint subscribed; one endpoint subscribed to `pedido.creado`
   answering 200; one that never answers (every delivery held its 10 s). The order of
   the conditions rotates from round to round; it prints the median time of an order
   in each (over every round's orders) and its ratio to no endpoint: once with the
   orders a second apart (--gap: each order's event is delivered before the next is
   placed, so only the request's own path is timed), once back to back (the deliveries
   then share the laptop's two cores with the next orders).
2. Deliveries a second. E endpoints subscribed to `envio.estado`, B shipments' status
   changed by 4 clients at once (a cheap write: the events come faster than they can be
   delivered): B x E deliveries. It prints how long the changes took, the time from the
   first change to the last delivery received, and the deliveries a second over that
   time and over the time after the last change was answered (the backlog's drain).
3. Slow endpoints (the load test of the deliveries' bound, WebhookDeliveryConcurrency):
   S endpoints that never answer, subscribed to `envio.estado`, and K status changes: K x
   S attempts that each hold their 10 s, then their retries. Every attempt is held
   exactly its deadline, so the attempts in flight at an instant are those that reached
   a receiver in the 10 s before it: it prints the most of them in any 10 s (the bound
   is the delivery function's environments, 4 locally, times its batch of 10), and the
   orders placed meanwhile by one client (p50, p95) against the same orders before the
   slow endpoints were subscribed.
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
    return placed(http, product_id)[0]


def placed(http: StackClient, product_id: int) -> tuple[float, int]:
    """How long one order took, and its id."""
    started = time.perf_counter()
    answer = http.gateway("POST", "/api/pedidos", json={**ORDER, "productoId": product_id})
    assert answer.status_code == 201, answer.text
    return time.perf_counter() - started, answer.json()["id"]


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


def moved(http: StackClient, shipment_id: int, number: int) -> None:
    """A status change of the shipment: an `envio.estado` event (any status may follow
    any other, so consecutive moves of one shipment all change it)."""
    status = ("ASIGNADO", "EN_RUTA")[number % 2]
    answer = http.gateway("PATCH", f"/api/envios/{shipment_id}/status?status={status}")
    assert answer.status_code == 200, answer.text


def delivery_rate(http: StackClient, order_id: int, endpoints: int, burst: int) -> None:
    """`burst` events (status changes of as many shipments, 4 clients) to `endpoints`."""
    shipments = [
        http.gateway(
            "POST",
            "/api/envios",
            json={
                "pedidoId": order_id,
                "tipoEnvio": "EXPRESS",
                "transportista": "Olva",
                "destino": "Lima",
            },
        ).json()["id"]
        for _ in range(burst)
    ]
    receivers = [Receiver() for _ in range(endpoints)]
    idents = [
        http.gateway(
            "POST", "/api/webhooks", json={"url": r.url, "eventos": ["envio.estado"]}
        ).json()["id"]
        for r in receivers
    ]
    try:
        time.sleep(2)  # the shipments' creations read from the streams (they make no event)
        started = time.time()  # the receivers stamp deliveries with time.time()
        with ThreadPoolExecutor(4) as clients:
            list(clients.map(lambda n: moved(http, shipments[n], n), range(burst)))
        answered = time.time()
        for receiver in receivers:
            receiver.wait_for(burst, timeout=600)
        times = [d.at for r in receivers for d in r.received]
        again = len(times) - len({(id(r), d.id) for r in receivers for d in r.received})
    finally:
        for ident in idents:
            http.gateway("DELETE", f"/api/webhooks/{ident}")
        for receiver in receivers:
            receiver.stop()
    done = max(times)
    after = [at for at in times if at > answered]
    print(
        f"\n{burst} shipment status changes by 4 clients, {endpoints} endpoints subscribed: "
        f"{len(times)} deliveries ({again} twice). The changes took "
        f"{answered - started:.1f} s ({burst / (answered - started):.0f}/s); the last delivery "
        f"came {done - started:.1f} s after the first change was sent: "
        f"{len(times) / (done - started):.1f} deliveries/s overall; {len(after)} of them after "
        f"the last change's answer, in {done - answered:.1f} s "
        f"({len(after) / max(done - answered, 1e-9):.1f}/s, the backlog's drain)."
    )


def most_in_flight(arrivals: list[float], held: float = 10.0) -> int:
    """The most attempts in flight at once: each is held `held` seconds from its arrival,
    so at any instant those that arrived in the `held` seconds before it."""
    arrivals = sorted(arrivals)
    most, start = 0, 0
    for end, at in enumerate(arrivals):
        while arrivals[start] <= at - held:
            start += 1
        most = max(most, end - start + 1)
    return most


def slow_endpoints(http: StackClient, order_id: int, product_id: int, slow: int, burst: int):
    """`slow` hanging endpoints and `burst` events for each: the attempts in flight at
    most, and the orders' times meanwhile against before."""
    before = timed_orders(http, product_id, 40)
    shipments = [
        http.gateway(
            "POST",
            "/api/envios",
            json={
                "pedidoId": order_id,
                "tipoEnvio": "EXPRESS",
                "transportista": "Olva",
                "destino": "Lima",
            },
        ).json()["id"]
        for _ in range(burst)
    ]
    receivers = [Receiver(then=HANG) for _ in range(slow)]
    idents = [
        http.gateway(
            "POST", "/api/webhooks", json={"url": r.url, "eventos": ["envio.estado"]}
        ).json()["id"]
        for r in receivers
    ]
    try:
        time.sleep(2)  # the shipments' creations read from the streams (they make no event)
        started = time.time()
        for number, shipment in enumerate(shipments):
            moved(http, shipment, number)
        during = timed_orders(http, product_id, 40)
        # Long enough for the first attempts and their first retries to pile up.
        time.sleep(max(0.0, 45 - (time.time() - started)))
        arrivals = [d.at for r in receivers for d in r.received]
    finally:
        for ident in idents:
            http.gateway("DELETE", f"/api/webhooks/{ident}")
        for receiver in receivers:
            receiver.stop()
    print(
        f"\n{slow} endpoints that never answer, {burst} events each ({slow * burst} "
        f"deliveries): {len(arrivals)} attempts reached them in "
        f"{max(arrivals) - started:.0f} s; at most {most_in_flight(arrivals)} in flight at "
        f"once (the bound: 4 environments x 10 a batch = 40 locally)."
    )
    print("| orders, one client | p50 ms | p95 ms |")
    print("|---|---|---|")
    for name, taken in (("before", before), ("while they hang", during)):
        taken = sorted(taken)
        p95 = taken[int(len(taken) * 0.95) - 1]
        print(f"| {name} | {statistics.median(taken) * 1000:.1f} | {p95 * 1000:.1f} |")


def timed_orders(http: StackClient, product_id: int, count: int) -> list[float]:
    return [place(http, product_id) for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--endpoints", type=int, default=5)
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--gap", type=float, default=1.0)
    parser.add_argument("--slow", type=int, default=20)
    parser.add_argument("--slow-burst", type=int, default=10)
    parser.add_argument("--only-slow", action="store_true", help="part 3 alone")
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
        order = http.gateway(
            "POST", "/api/pedidos", json={**ORDER, "productoId": product["id"]}
        ).json()
        if not args.only_slow:
            # Spaced: each order's events and deliveries are done before the next, so
            # what is timed is the request's own path. Back to back: they share the
            # laptop's cores with the next orders (on AWS they run on other machines).
            request_cost(http, product["id"], args.orders, args.rounds, args.gap)
            request_cost(http, product["id"], args.orders, args.rounds, 0)
            delivery_rate(http, order["id"], args.endpoints, args.burst)
        slow_endpoints(http, order["id"], product["id"], args.slow, args.slow_burst)
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
