"""Rerunnable benchmark: GET /api/dashboard's answer time with 10 orders and with 10,000
(docs/api.md#dashboard: within 1.5 times).

Usage: `make bench-dashboard` (or .venv/bin/python bench/dashboard_time.py [--orders N]
[--rounds R] [--requests K]); `make bench` runs a short one.

Two local stacks side by side, each started as `make run` starts it (data in memory): one
holds 10 orders, the other N (10,000). The 10 are placed through the API, with a
shipment each for the first three; the other N - 10 are written straight into the
second stack's orders table, 25 to a request, as the orders repository writes them
(statuses in turn, created over the last 20 days). The dashboard's figures function reads
those from the table's stream as it reads any write, and the benchmark waits until the
dashboard counts every order (the time that takes is printed: the figures kept up at
that many orders a second). Then R rounds: in each, K requests to one stack and K to the
other, which goes first alternating, after a warm-up of each; a round's ratio is its two
medians', so the machine's load (other processes, the other stack) falls on both alike.

Prints a Markdown table of the rounds and, last: `dashboard: <ms> ms with 10 orders,
<ms> ms with <N>, ratio <r> (median of R rounds)`.
"""

import argparse
import os
import statistics
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal

import boto3

from infra.local import LOCAL_AWS_ENV
from orders.repository import item_of
from orders.rules import STATUSES, Order
from tests.support.stack_process import StackClient, StackProcess

SMALL = 10
LARGE = 10_000
SHIPPED = 3
# Ids of the orders written straight into the table: past any the stack's counter hands out.
FIRST_WRITTEN_ID = 1_000_000
WARM_UP = 10
CATCH_UP_SECONDS = 600


def placed(http: StackClient, orders: int) -> None:
    """`orders` orders of one product through the API, the first SHIPPED shipped."""
    product = http.gateway(
        "POST",
        "/api/inventario",
        json={
            "sku": "DASH-BENCH",
            "nombre": "Caja",
            "precioUnitario": 4.5,
            "stockActual": 10**6,
            "umbralMinimo": 5,
        },
    ).json()
    for n in range(orders):
        order = http.gateway(
            "POST",
            "/api/pedidos",
            json={
                "userId": 1 + n % 7,
                "userEmail": "bench@example.com",
                "clienteNombre": "Bench",
                "total": 19.99,
                "tipoPedido": "NACIONAL",
                "destino": "Lima",
                "productoId": product["id"],
                "cantidad": 1,
            },
        ).json()
        if n < SHIPPED:
            http.gateway(
                "POST",
                "/api/envios",
                json={
                    "pedidoId": order["id"],
                    "tipoEnvio": "TERRESTRE",
                    "transportista": "DHL",
                    "destino": "Lima",
                },
            )


def written(stack: StackProcess, count: int) -> None:
    """`count` orders written straight into the stack's table, 25 to a request."""
    client = boto3.client(
        "dynamodb",
        endpoint_url=stack.dynamodb,
        region_name=LOCAL_AWS_ENV["AWS_DEFAULT_REGION"],
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    now = datetime.now().replace(microsecond=0)
    items = [
        item_of(
            Order(
                id=FIRST_WRITTEN_ID + n,
                user_id=1 + n % 50,
                user_email="bench@example.com",
                cliente_nombre="Bench",
                total=Decimal("19.99"),
                status=STATUSES[n % len(STATUSES)],
                tipo_pedido="NACIONAL",
                destino="Lima",
                observaciones=None,
                producto_id=1,
                cantidad=1,
                creado_en=(now - timedelta(hours=n % (20 * 24))).isoformat(timespec="microseconds"),
            )
        ).serialize()
        for n in range(count)
    ]
    for start in range(0, len(items), 25):
        request = {"OrdersTable": [{"PutRequest": {"Item": i}} for i in items[start : start + 25]]}
        while request:
            request = client.batch_write_item(RequestItems=request).get("UnprocessedItems")


def counted(http: StackClient) -> int:
    return http.gateway("GET", "/api/dashboard").json()["pedidos"]["total"]


def caught_up(http: StackClient, orders: int) -> float:
    """Seconds until the dashboard counts `orders` orders."""
    started = time.monotonic()
    while counted(http) < orders:
        if time.monotonic() - started > CATCH_UP_SECONDS:
            raise RuntimeError(f"the figures did not count {orders} orders in time")
        time.sleep(0.5)
    return time.monotonic() - started


def timed(call: Callable[[], object], count: int) -> float:
    """The median milliseconds of `count` calls."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def timed_rounds(small: StackClient, large: StackClient, count: int, requests: int) -> list[tuple]:
    """(small ms, large ms, ratio) of each round; which stack goes first alternates."""

    def ask(http):
        def call():
            answer = http.gateway("GET", "/api/dashboard")
            assert answer.status_code == 200, answer.text

        return call

    for http in (small, large):
        timed(ask(http), WARM_UP)
    results = []
    for n in range(count):
        first, second = (small, large) if n % 2 == 0 else (large, small)
        times = {id(first): timed(ask(first), requests), id(second): timed(ask(second), requests)}
        a, b = times[id(small)], times[id(large)]
        results.append((a, b, b / a))
    return results


def compare(orders: int = LARGE, rounds: int = 6, requests: int = 30) -> tuple[list[tuple], float]:
    """Both stacks, seeded; the rounds and how long the figures took to count the large
    stack's orders."""
    env = {"POWERTOOLS_LOG_LEVEL": "WARNING"}  # the request lines of both would drown the table
    small_stack = StackProcess(env).start()
    large_stack = StackProcess(env).start()
    try:
        small = StackClient(small_stack, small_stack.token)
        large = StackClient(large_stack, large_stack.token)
        placed(small, SMALL)
        placed(large, SMALL)
        written(large_stack, orders - SMALL)
        caught_up(small, SMALL)
        took = caught_up(large, orders)
        return timed_rounds(small, large, rounds, requests), took
    finally:
        small_stack.stop()
        large_stack.stop()


def summary(results: list[tuple], orders: int) -> str:
    small = statistics.median(r[0] for r in results)
    large = statistics.median(r[1] for r in results)
    ratio = statistics.median(r[2] for r in results)
    return (
        f"dashboard: {small:.1f} ms with {SMALL} orders, {large:.1f} ms with {orders}, "
        f"ratio {ratio:.2f} (median of {len(results)} rounds)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault("AWS_DEFAULT_REGION", LOCAL_AWS_ENV["AWS_DEFAULT_REGION"])
    results, took = compare(args.orders, args.rounds, args.requests)
    print(
        f"{args.orders - SMALL} orders written straight into the table: all counted by the figures "
        f"{took:.1f} s after the last was written.\n"
    )
    print(f"| round | {SMALL} orders, median ms | {args.orders} orders, median ms | ratio |")
    print("|---|---|---|---|")
    for n, (a, b, ratio) in enumerate(results, 1):
        print(f"| {n} | {a:.1f} | {b:.1f} | {ratio:.2f} |")
    print()
    print(summary(results, args.orders))


if __name__ == "__main__":
    main()
