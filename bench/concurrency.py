"""Rerunnable benchmark: what concurrency buys on the local stack now that each function
runs in execution environments of its own (infra/local/lambdas.py), and the stack's
memory with every function warm.

Usage: `make bench-concurrency` (or .venv/bin/python bench/concurrency.py [--requests N]
[--rounds R]). It starts the stack on free ports (as `make run` does, data in memory),
then, for `POST /api/pedidos` and `GET /api/inventario/{id}`, sends N requests with 1
client and N with 4, R rounds, alternating which goes first; it prints each one's median
throughput and their ratio (the ratio is what to compare between machines: the machine's
speed cancels). Then every function is invoked once more and the resident memory of the
stack and of each function's environments is summed.
"""

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.support.stack_process import StackClient, StackProcess

ORDER = {
    "userId": 1,
    "userEmail": "ana@example.com",
    "clienteNombre": "Ana",
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "cantidad": 1,
    "total": 2.5,
}


def throughput(call, count: int, concurrency: int) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        statuses = set(pool.map(lambda i: call(i).status_code, range(count)))
    assert statuses <= {200, 201}, statuses
    return count / (time.perf_counter() - started)


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return (
        next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        / 1024
    )


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        listed = (task / "children").read_text().split()
        found += [int(child) for child in listed]
    return found + [grandchild for child in found for grandchild in children(child)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    stack = StackProcess().start()
    try:
        http = StackClient(stack, stack.token)
        product = http.gateway(
            "POST",
            "/api/inventario",
            json={
                "sku": "BENCH-C",
                "nombre": "Caja",
                "precioUnitario": 2.5,
                "stockActual": 10**9,
                "umbralMinimo": 0,
            },
        ).json()
        routes = {
            "POST /api/pedidos": lambda i: http.gateway(
                "POST", "/api/pedidos", json={**ORDER, "productoId": product["id"]}
            ),
            "GET /api/inventario/{id}": lambda i: http.gateway(
                "GET", f"/api/inventario/{product['id']}"
            ),
        }
        print(
            f"| request | req/s, 1 client | req/s, 4 clients | ratio "
            f"(median of {args.rounds} x {args.requests}) |"
        )
        print("|---|---|---|---|")
        for label, call in routes.items():
            throughput(call, 8, 4)  # every environment started: cold starts are not this
            runs: dict[int, list[float]] = {1: [], 4: []}
            for round_ in range(args.rounds):
                for concurrency in (1, 4) if round_ % 2 == 0 else (4, 1):
                    runs[concurrency].append(throughput(call, args.requests, concurrency))
            one, four = statistics.median(runs[1]), statistics.median(runs[4])
            print(f"| {label} | {one:.0f} | {four:.0f} | {four / one:.2f}x |")
        http.notify("POST", "/notificaciones", json={"warm": True})
        http.gateway("GET", "/api/envios")
        time.sleep(5)  # the order events queued by the run are handled
        pids = children(stack.proc.pid)
        total = rss_mib(stack.proc.pid) + sum(rss_mib(pid) for pid in pids)
        print(
            f"\nmemory with every pool warm: {total:.0f} MiB resident "
            f"(the stack {rss_mib(stack.proc.pid):.0f} MiB, {len(pids)} environments)"
        )
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
