"""Rerunnable benchmark of the local stack under the loads that used to break it.

Usage: `make bench-hardening` (or .venv/bin/python bench/hardening.py [--creates N]).
Each part starts `python -m infra.dev` on free ports, as `make run` does, and
drives it over HTTP from this process; it prints one Markdown table per part.

1. 64 clients connecting at once (the old server's listen backlog was 5).
2. Memory and create latency over N product creates (moto copied the whole catalog on
   every transaction and never freed a copy).
3. 20 orders while 120 products are being created (stock checks queued behind writes).
4. 16 concurrent orders against an inventory that never answers (pybreaker held its
   lock across each call).
5. The connection limit plus 100 connections held open, idle or with half a request
   each, then the next client (the server accepted one connection a round of its loop,
   each round polling them all: the next client waited 14.6 s on a slow machine).

`--only NAME` runs one part (connections, creates, orders, hung, held).

Times are ratios against a baseline taken in the same run where that is meaningful:
the machine is shared and has two cores.
"""

import argparse
import socket
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from infra.local.http_server import CONNECTION_LIMIT
from tests.support.processes import resident_mib
from tests.support.stack_process import StackClient, StackProcess

PRODUCT = {"nombre": "Caja", "precioUnitario": 1, "stockActual": 10**6, "umbralMinimo": 0}
ORDER = {
    "userId": 1,
    "userEmail": "b@example.com",
    "clienteNombre": "Bench",
    "total": 1,
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "cantidad": 1,
}


def timed(call):
    started = time.perf_counter()
    result = call()
    return result, (time.perf_counter() - started) * 1000


def table(title: str, rows: list[tuple]) -> None:
    print(f"\n**{title}**\n\n| measure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


def started_stack(**env) -> tuple[StackProcess, StackClient]:
    stack = StackProcess(env).start()
    return stack, StackClient(stack, stack.token)


def connections(clients: int = 64) -> None:
    stack, http = started_stack()
    try:
        http.gateway("GET", "/api/inventario/alertas")
        baseline = statistics.median(
            timed(lambda: http.gateway("GET", "/api/inventario/alertas"))[1] for _ in range(20)
        )
        at_once = threading.Barrier(clients)

        def one(_):
            at_once.wait()
            try:
                response, millis = timed(lambda: http.gateway("GET", "/api/inventario/alertas"))
                return response.status_code, millis
            except OSError as exc:
                return repr(exc), None

        with ThreadPoolExecutor(clients) as pool:
            results = list(pool.map(one, range(clients)))
    finally:
        stack.stop()
    answered = [millis for status, millis in results if status == 200]
    table(
        f"{clients} clients connecting at once (GET /api/inventario/alertas)",
        [
            ("answered 200", f"{len(answered)} of {clients}"),
            ("one request alone, median ms (baseline)", f"{baseline:.1f}"),
            ("slowest of the burst, ms", f"{max(answered):.0f}"),
            (
                "slowest / baseline (the burst queues on 2 cores)",
                f"{max(answered) / baseline:.1f}x",
            ),
        ],
    )


def creates(count: int, concurrency: int = 4) -> None:
    stack, http = started_stack()
    try:
        http.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": "WARM"})
        rss_before = resident_mib(stack.proc.pid)
        latencies = [0.0] * count

        def create(i):
            response, latencies[i] = timed(
                lambda: http.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": f"MEM-{i}"})
            )
            assert response.status_code == 201, response.text

        started = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(create, range(count)))
        wall = time.perf_counter() - started
        rss_after = resident_mib(stack.proc.pid)
        listed, list_ms = timed(lambda: http.gateway("GET", "/api/inventario"))
        stopped, stop_ms = timed(stack.stop)
    finally:
        stack.stop()
    first, last = statistics.median(latencies[:100]), statistics.median(latencies[-100:])
    table(
        f"{count} product creates, {concurrency} at a time",
        [
            ("RSS before / after, MiB", f"{rss_before:.0f} / {rss_after:.0f}"),
            ("RSS growth, MiB (target < 150)", f"{rss_after - rss_before:.0f}"),
            ("median create, first 100 / last 100, ms", f"{first:.1f} / {last:.1f}"),
            ("last / first (target <= 1.5)", f"{last / first:.2f}x"),
            ("creates per second", f"{count / wall:.0f}"),
            (f"GET /api/inventario with {count + 1} products, ms", f"{list_ms:.0f}"),
            ("stop (SIGTERM to exit), ms", f"{stop_ms:.0f}"),
        ],
    )


def orders_under_writes(writes: int = 120, orders: int = 20) -> None:
    stack, http = started_stack()
    try:
        product = http.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": "O-0"}).json()
        order = {**ORDER, "productoId": product["id"]}
        baseline = statistics.median(
            timed(lambda: http.gateway("POST", "/api/pedidos", json=order))[1] for _ in range(10)
        )

        def write(i):
            return timed(
                lambda: http.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": f"W-{i}"})
            )

        def place(_):
            return timed(lambda: http.gateway("POST", "/api/pedidos", json=order))

        with ThreadPoolExecutor(writes + orders) as pool:
            write_jobs = [pool.submit(write, i) for i in range(writes)]
            order_jobs = [pool.submit(place, i) for i in range(orders)]
            placed = [job.result() for job in order_jobs]
            written = [job.result() for job in write_jobs]
    finally:
        stack.stop()
    refused = [r.json().get("error") for r, _ in placed if r.status_code != 201]
    slowest = max(millis for _, millis in placed)
    table(
        f"{orders} orders while {writes} products are created",
        [
            ("orders placed (201)", f"{orders - len(refused)} of {orders}"),
            ("STOCK_NOT_CONFIRMED", str(refused.count("STOCK_NOT_CONFIRMED"))),
            (
                "products created (201)",
                f"{sum(r.status_code == 201 for r, _ in written)} of {writes}",
            ),
            ("one order alone, median ms (baseline)", f"{baseline:.0f}"),
            ("slowest order under the writes, ms", f"{slowest:.0f}"),
        ],
    )


def hung_inventory(orders: int = 16, timeout: float = 2.0) -> None:
    hung = socket.create_server(("127.0.0.1", 0), backlog=64)  # accepts, never answers
    held = []
    threading.Thread(
        target=lambda: [held.append(hung.accept()) for _ in iter(int, 1)], daemon=True
    ).start()
    url = f"http://127.0.0.1:{hung.getsockname()[1]}"
    stack, http = started_stack(
        INVENTORY_SERVICE_URL=url,
        BREAKER_FAIL_MAX="5",
        BREAKER_RESET_SECONDS="60",
        STOCK_CHECK_TIMEOUT_SECONDS=str(timeout),
    )
    try:
        order = {**ORDER, "productoId": 1}
        at_once = threading.Barrier(orders)

        def place(_):
            at_once.wait()
            response, millis = timed(lambda: http.gateway("POST", "/api/pedidos", json=order))
            return response.status_code, millis

        with ThreadPoolExecutor(orders) as pool:
            burst = list(pool.map(place, range(orders)))
        after = [timed(lambda: http.gateway("POST", "/api/pedidos", json=order)) for _ in range(5)]
    finally:
        stack.stop()
        hung.close()
    statuses = sorted(status for status, _ in burst)
    table(
        f"{orders} concurrent orders, inventory hung, timeout {timeout:g} s",
        [
            (
                "answers of the burst",
                ", ".join(f"{statuses.count(s)}x {s}" for s in sorted(set(statuses))),
            ),
            (
                "slowest of the burst, s (target <= timeout + 0.5)",
                f"{max(millis for _, millis in burst) / 1000:.2f}",
            ),
            ("the next 5 orders, breaker open", ", ".join(str(r.status_code) for r, _ in after)),
            ("slowest of those, ms", f"{max(millis for _, millis in after):.0f}"),
        ],
    )


def hold(address: tuple[str, int], count: int, sent: bytes, held: list) -> None:
    """`count` connections to `address`, each sent `sent`, kept in `held`."""
    for _ in range(count):
        held.append(socket.create_connection(address))
        if sent:
            held[-1].sendall(sent)


def held_connections(past_the_limit: int = 100) -> None:
    """The next client's answer with CONNECTION_LIMIT + `past_the_limit` connections held
    (idle, then half-open), against one request alone; an hour's idle timeout, so only
    the server making room frees a place."""
    stack, http = started_stack(HTTP_IDLE_TIMEOUT_SECONDS="3600")
    address = ("127.0.0.1", int(stack.gateway.rsplit(":", 1)[1]))
    rows = []
    try:
        http.gateway("GET", "/api/inventario")
        baseline = statistics.median(
            timed(lambda: http.gateway("GET", "/api/inventario"))[1] for _ in range(10)
        )
        rows.append(("one request alone, median ms (baseline)", f"{baseline:.1f}"))
        for kind, sent in (("idle", b""), ("half-open", b"GET /api/inventario HTTP/1.1\r\n")):
            held: list[socket.socket] = []
            try:
                _, opened_ms = timed(
                    partial(hold, address, CONNECTION_LIMIT + past_the_limit, sent, held)
                )
                answer, millis = timed(lambda: http.gateway("GET", "/api/inventario"))
            finally:
                for sock in held:
                    sock.close()
            rows.append((f"{kind}: opening them, ms", f"{opened_ms:.0f}"))
            rows.append((f"{kind}: the next client, ms ({answer.status_code})", f"{millis:.0f}"))
            rows.append((f"{kind}: the next client / baseline", f"{millis / baseline:.1f}x"))
    finally:
        stack.stop()
    table(f"{CONNECTION_LIMIT} + {past_the_limit} connections held, then the next client", rows)


PARTS = {
    "connections": connections,
    "creates": None,  # takes --creates
    "orders": orders_under_writes,
    "hung": hung_inventory,
    "held": held_connections,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--creates", type=int, default=5000)
    parser.add_argument("--only", choices=sorted(PARTS))
    args = parser.parse_args()
    for name, part in PARTS.items():
        if args.only in (None, name):
            creates(args.creates) if part is None else part()


if __name__ == "__main__":
    main()
