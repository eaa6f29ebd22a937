"""Rerunnable benchmark of the local stack: start-up time, latency per endpoint, memory,
and the dashboard's answer time with 10 orders and with 10,000.

Usage: `make bench` (or .venv/bin/python bench/run.py [--requests N] [--concurrency C]).
It starts `python -m infra.dev` on free ports, exactly as `make run` does, drives
it over HTTP from this process, prints a Markdown table and stops the stack; then runs a
short bench/dashboard_time.py (`make bench-dashboard` runs it in full) and prints its last
line. Numbers are for the laptop emulation (moto, Chalice's local server), not for AWS.
"""

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import dashboard_time

from tests.support.processes import resident_mib
from tests.support.stack_process import StackClient, StackProcess

WARM_REQUESTS_PER_CLIENT = 5
DASHBOARD_ROUNDS = 3


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure(label, call, count, concurrency):
    def timed(i):
        started = time.perf_counter()
        response = call(i)
        return time.perf_counter() - started, response.status_code

    # Warm-up at the same concurrency: every function's pool grows to the size this load
    # makes it, so a new environment's cold start (bench/cold_start.py) is not timed here.
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(call, range(count, count + WARM_REQUESTS_PER_CLIENT * concurrency)))
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(timed, range(count)))
    wall = time.perf_counter() - started
    millis = [seconds * 1000 for seconds, _ in results]
    statuses = sorted({status for _, status in results})
    return (
        f"| {label} | {count} | {concurrency} | {statistics.median(millis):.1f} | "
        f"{percentile(millis, 0.95):.1f} | {percentile(millis, 0.99):.1f} | "
        f"{count / wall:.0f} | {statuses} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    n, c = args.requests, args.concurrency

    started = time.perf_counter()
    stack = StackProcess().start()
    ready_seconds = time.perf_counter() - started
    try:
        http = StackClient(stack, stack.token)
        rss_idle = resident_mib(stack.proc.pid)
        product = http.gateway(
            "POST",
            "/api/inventario",
            json={
                "sku": "BENCH-0",
                "nombre": "Caja",
                "precioUnitario": 1.5,
                "stockActual": 10**9,
                "umbralMinimo": 1,
            },
        ).json()["id"]
        order = {
            "userId": 1,
            "userEmail": "b@example.com",
            "clienteNombre": "Bench",
            "total": 1.5,
            "tipoPedido": "NACIONAL",
            "destino": "Lima",
            "productoId": product,
            "cantidad": 1,
        }
        shipment = {
            "pedidoId": 1,
            "tipoEnvio": "EXPRESS",
            "transportista": "DHL",
            "destino": "Lima",
        }
        rows = [
            measure(
                "GET /api/inventario/{id}",
                lambda i: http.gateway("GET", f"/api/inventario/{product}"),
                n,
                c,
            ),
            measure(
                "GET /api/inventario/{id}/stock",
                lambda i: http.gateway("GET", f"/api/inventario/{product}/stock?cantidad=1"),
                n,
                c,
            ),
            measure(
                "POST /api/inventario",
                lambda i: http.gateway(
                    "POST",
                    "/api/inventario",
                    json={
                        "sku": f"BENCH-{i + 1}",
                        "nombre": "Caja",
                        "precioUnitario": 1,
                        "stockActual": 1,
                        "umbralMinimo": 0,
                    },
                ),
                n,
                c,
            ),
            measure(
                "POST /api/pedidos (stock check + event)",
                lambda i: http.gateway("POST", "/api/pedidos", json=order),
                n,
                c,
            ),
            measure(
                "POST /api/envios",
                lambda i: http.gateway("POST", "/api/envios", json=shipment),
                n,
                c,
            ),
            measure(
                "POST /notificaciones",
                lambda i: http.notify("POST", "/notificaciones", json={"i": i}),
                n,
                c,
            ),
        ]
        rss_loaded = resident_mib(stack.proc.pid)
    finally:
        stack.stop()

    broken = StackProcess(
        {
            "INVENTORY_SERVICE_URL": "http://127.0.0.1:9",
            "BREAKER_FAIL_MAX": "1",
            "BREAKER_RESET_SECONDS": "600",
        }
    ).start()
    try:
        http = StackClient(broken, broken.token)
        http.gateway("POST", "/api/pedidos", json=order)  # trips the breaker
        rows.append(
            measure(
                "POST /api/pedidos, breaker open (503)",
                lambda i: http.gateway("POST", "/api/pedidos", json=order),
                n,
                c,
            )
        )
    finally:
        broken.stop()

    print(
        f"Local stack ready in {ready_seconds:.2f} s (venv already installed); "
        f"RSS {rss_idle:.0f} MiB idle, {rss_loaded:.0f} MiB after the run.\n"
    )
    print("| request | n | concurrency | p50 ms | p95 ms | p99 ms | req/s | statuses |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    results, _, _ = dashboard_time.compare(rounds=DASHBOARD_ROUNDS)
    print()
    print(dashboard_time.summary(results, dashboard_time.LARGE))


if __name__ == "__main__":
    main()
