"""Rerunnable benchmark: GET /api/dashboard's answer time with 10 orders and with 10,000
(docs/api.md#dashboard: within 1.5 times).

Usage: `make bench-dashboard` (or .venv/bin/python bench/dashboard_time.py [--orders N]
[--rounds R] [--requests K]); `make bench` runs a short one.

Two local stacks side by side, each started as `make run` starts it. One holds 10 orders,
placed through the API (a shipment each for the first three). The other starts from a
data directory holding N - 10 orders more (statuses in turn, created over the last 20
days), as a developer's would: restored data makes no stream record, so `make run`'s
start counts them into the dashboard's figures (infra/figures_backfill.py; how long
that start took is printed), and nothing runs behind the measurements (written
through the API or the table, 10,000 orders would leave the webhooks' events and the
figures reading their streams for a while, on the same two cores). Then its 10 orders
through the API, and both dashboards are waited for until they count every order.

Then R rounds of K requests to each stack, one to each in turn (which goes first
alternating), after a warm-up of each: the machine's load, which moves by the second
on a shared host, falls on both alike. A round's ratio is its two medians'.

Prints a Markdown table of the rounds and, last: `dashboard: <ms> ms with 10 orders,
<ms> ms with <N>, ratio <r> (median of R rounds)`.
"""

import argparse
import json
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

from infra.local.persistence import FORMAT, SNAPSHOT_FILE
from orders.repository import item_of
from orders.rules import STATUSES, Order
from tests.support import stack_process
from tests.support.stack_process import StackClient, StackProcess

SMALL = 10
LARGE = 10_000
SHIPPED = 3
# Ids of the orders written straight into the table: past any the stack's counter hands out.
FIRST_WRITTEN_ID = 1_000_000
WARM_UP = 10
CATCH_UP_SECONDS = 600
# A start that counts 10,000 restored orders into the figures takes a minute or more on a
# busy machine: past the test harness's usual wait for Ready.
READY_SECONDS = 900


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


def saved(directory: Path, count: int) -> None:
    """A data directory holding `count` orders, as the local stack saves its tables."""
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
    document = {"format": FORMAT, "tables": {"OrdersTable": items}}
    (directory / SNAPSHOT_FILE).write_text(json.dumps(document), encoding="utf-8")


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


def ask(http: StackClient) -> float:
    """One dashboard request's milliseconds."""
    started = time.perf_counter()
    answer = http.gateway("GET", "/api/dashboard")
    took = (time.perf_counter() - started) * 1000
    assert answer.status_code == 200, answer.text
    return took


def timed_rounds(small: StackClient, large: StackClient, count: int, requests: int) -> list[tuple]:
    """(small ms, large ms, ratio) of each round: the medians of its requests, made to
    each stack in turn, which goes first alternating."""
    for http in (small, large):
        for _ in range(WARM_UP):
            ask(http)
    results = []
    for n in range(count):
        times: dict[int, list[float]] = {id(small): [], id(large): []}
        for k in range(requests):
            pair = (small, large) if (n + k) % 2 == 0 else (large, small)
            for http in pair:
                times[id(http)].append(ask(http))
        a, b = statistics.median(times[id(small)]), statistics.median(times[id(large)])
        results.append((a, b, b / a))
    return results


def compare(
    orders: int = LARGE, rounds: int = 6, requests: int = 30
) -> tuple[list[tuple], float, float]:
    """Both stacks, seeded; the rounds, how long the large one took to start (its figures
    counted the restored orders then), and how soon after the last of its orders was
    answered the small one's figures counted it (docs/api.md#dashboard: within 5 s; the
    tests wait for it rather than time it)."""
    env = {"POWERTOOLS_LOG_LEVEL": "WARNING"}  # the request lines of both would drown the table
    data = Path(tempfile.mkdtemp(prefix="bench-dashboard-"))
    saved(data, orders - SMALL)
    stack_process.READY_TIMEOUT_SECONDS = READY_SECONDS
    small_stack = StackProcess(env).start()
    started = time.monotonic()
    large_stack = StackProcess({**env, "LOCAL_DATA_DIR": str(data)}).start()
    took = time.monotonic() - started
    try:
        small = StackClient(small_stack, small_stack.token)
        large = StackClient(large_stack, large_stack.token)
        placed(small, SMALL)
        placed(large, SMALL)
        fresh = caught_up(small, SMALL)
        caught_up(large, orders)
        return timed_rounds(small, large, rounds, requests), took, fresh
    finally:
        small_stack.stop()
        large_stack.stop()
        shutil.rmtree(data, ignore_errors=True)


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
    results, took, fresh = compare(args.orders, args.rounds, args.requests)
    print(
        f"The stack restoring {args.orders - SMALL} orders started in {took:.1f} s (the "
        "figures of them counted at its start). The other's figures counted its last order "
        f"{fresh:.1f} s after that order's answer (the promise: within 5 s).\n"
    )
    print(f"| round | {SMALL} orders, median ms | {args.orders} orders, median ms | ratio |")
    print("|---|---|---|---|")
    for n, (a, b, ratio) in enumerate(results, 1):
        print(f"| {n} | {a:.1f} | {b:.1f} | {ratio:.2f} |")
    print()
    print(summary(results, args.orders))


if __name__ == "__main__":
    main()
