"""Rerunnable benchmark: what a best seller's approvals, ships and cancels write, key by
key, and the ceiling that puts on one product (docs/capacity.md#stock-moves).

Usage: `make bench-stock` (or .venv/bin/python bench/stock.py [--orders N] [--clients N]).

It starts the local stack as `make run` does, with the emulator counting the writes of
every partition key of every table and index (DYNAMODB_PARTITION_METER), makes one
product with as many units as orders, places the orders, then, each phase on a zeroed
count: approves them all at once from several clients; ships half of them; cancels the
other half. For each phase it prints the answers, the moves a second, and the keys
written per move; last, one line: `product key: <writes> writes per approval`.

A write inside a transaction is two write units on AWS, so a key written once per move in
a transaction takes two of its partition's 1,000 units a second.
"""

import argparse
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from tests.support.partition_meter import settled, zeroed
from tests.support.stack_process import StackClient, StackProcess

TOP = 12  # the keys each phase shows
PARTITION_WRITE_UNITS = 1000


def phase(stack: StackProcess, http: StackClient, orders: list[int], status: str, clients: int):
    """Every order moved to `status` at once: (answers, seconds, the count of writes)."""
    settled(stack, TOP)
    zeroed(stack)

    def move(order_id: int) -> str:
        answer = http.gateway("PATCH", f"/api/pedidos/{order_id}/status?status={status}")
        if answer.status_code < 300:
            return str(answer.status_code)
        return f"{answer.status_code} {answer.json().get('error')}"

    started = time.monotonic()
    with ThreadPoolExecutor(clients) as pool:
        answers = Counter(pool.map(move, orders))
    seconds = time.monotonic() - started
    return answers, seconds, settled(stack, TOP)


def where(key: dict) -> str:
    place = key["table"] if key["index"] is None else f"{key['table']}/index/{key['index']}"
    return f"{place} `{key['key']}`"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    stack = StackProcess(
        {"DYNAMODB_PARTITION_METER": "1", "POWERTOOLS_LOG_LEVEL": "WARNING"}
    ).start()
    try:
        http = StackClient(stack, stack.token)
        product = http.gateway(
            "POST",
            "/api/inventario",
            json={
                "sku": "BEST-SELLER",
                "nombre": "Caja",
                "precioUnitario": 1,
                "stockActual": args.orders,
                "umbralMinimo": 0,
            },
        ).json()
        order = {
            "userEmail": "c@example.com",
            "clienteNombre": "Cliente",
            "total": 1,
            "tipoPedido": "NACIONAL",
            "destino": "Lima",
            "productoId": product["id"],
            "cantidad": 1,
        }
        with ThreadPoolExecutor(args.clients) as pool:
            orders = list(
                pool.map(
                    lambda n: http.gateway(
                        "POST", "/api/pedidos", json={**order, "userId": n % 50 + 1}
                    ).json()["id"],
                    range(args.orders),
                )
            )
        half = len(orders) // 2
        phases = [
            ("approve (PENDIENTE -> APROBADO)", orders, "APROBADO"),
            ("ship (APROBADO -> EN_ENVIO)", orders[:half], "EN_ENVIO"),
            ("cancel (APROBADO -> CANCELADO)", orders[half:], "CANCELADO"),
        ]
        results = [
            (label, *phase(stack, http, ids, status, args.clients)) for label, ids, status in phases
        ]
        final = http.gateway("GET", f"/api/inventario/{product['id']}").json()
    finally:
        stack.stop()

    print(f"One product, {args.orders} orders of 1 unit, {args.clients} clients\n")
    print(
        "| move | answers | seconds | moves/s | writes per move | the product's key: "
        "writes per move | its peak writes/s |\n|---|---|---|---|---|---|---|"
    )
    per_approval = None
    for label, answers, seconds, report in results:
        moved = sum(n for status, n in answers.items() if status == "200") or 1
        product_key = next(
            (k for k in report["hottest"] if k["table"] == "ProductsTable" and k["index"] is None),
            {"writes": 0, "peakPerSecond": 0},
        )
        if per_approval is None:
            per_approval = product_key["writes"] / moved
        shown = ", ".join(f"{n} x {status}" for status, n in sorted(answers.items()))
        print(
            f"| {label} | {shown} | {seconds:.1f} | {moved / seconds:.0f} | "
            f"{report['writes'] / moved:.2f} | {product_key['writes'] / moved:.2f} | "
            f"{product_key['peakPerSecond']} |"
        )
    for label, answers, _, report in results:
        moved = sum(n for status, n in answers.items() if status == "200") or 1
        print(f"\n**{label}: the keys written** ({report['keys']} keys)\n")
        print("| key | writes | per move |\n|---|---|---|")
        for key in report["hottest"]:
            print(f"| {where(key)} | {key['writes']} | {key['writes'] / moved:.2f} |")
    print(
        f"\nThe product after: stockActual {final['stockActual']}, stockReservado "
        f"{final['stockReservado']}, stockDisponible {final['stockDisponible']}"
    )
    ceiling = PARTITION_WRITE_UNITS / (2 * (per_approval or 1))
    print(f"product key: {per_approval:.2f} writes per approval; ceiling {ceiling:.0f} approvals/s")


if __name__ == "__main__":
    main()
