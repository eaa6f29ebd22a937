"""Rerunnable benchmark: what concurrency buys on the local stack now that each function
runs in execution environments of its own (infra/local/lambdas.py), what bounds it, and
the stack's memory with every function warm.

Usage: `make bench-concurrency` (or .venv/bin/python bench/concurrency.py [--requests N]
[--rounds R]). It starts the stack on free ports (as `make run` does, data in memory),
then, for `POST /api/pedidos` and `GET /api/inventario/{id}`:

- warms every pool to the size 4 clients make it grow to (a new environment's cold start
  is bench/cold_start.py's to measure, not this one's);
- sends N requests with 1 client and N with 4, R rounds, alternating which goes first,
  and prints each one's median throughput and their ratio (the ratio is what to compare
  between machines: the machine's speed cancels);
- counts the CPU time every process of the stack, and the clients, spent per request,
  the work a request sets off after its answer included (an order's event: the run's
  count stops once the stack is idle again). With 1 client that CPU, times the
  throughput, is how many cores one client already keeps busy; 4 clients can get at
  most (cores / that) times one client's throughput, whatever the code does. That
  ceiling is printed beside the ratio, and the CPU per request by process below.

Then every function is invoked once more and the resident memory of the stack and of
each function's environments is summed.
"""

import argparse
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.support.processes import descendants, function_of
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
CLIENTS = (1, 4)
WARM_REQUESTS = 200
# The stack counts as idle again (a run's follow-up work done) once a quarter second
# passes in which all of it used less than this share of one core.
IDLE_SHARE = 0.05
IDLE_WINDOW_SECONDS = 0.25
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")
CLIENTS_ROLE = "clients (this bench)"


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


def role(pid: int, stack_pid: int) -> str:
    """What a process of the stack is: the stack, the emulator, or a function's
    environment (by the function's name)."""
    if pid == stack_pid:
        return "stack (gateways, Lambda service)"
    function = function_of(pid)
    if function is not None:
        return function
    if b"infra.local.aws_process" in Path(f"/proc/{pid}/cmdline").read_bytes():
        return "AWS emulator (moto)"
    return "other"


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of one process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_SECOND


class CpuMeter:
    """CPU seconds spent by each role of the stack's processes. An environment that exits
    between two readings takes its time with it: the bench warms the pools first, so
    none start or stop while it counts."""

    def __init__(self, stack_pid: int):
        self._stack_pid = stack_pid

    def read(self) -> Counter:
        used: Counter = Counter()
        for pid in [self._stack_pid, *descendants(self._stack_pid)]:
            try:
                used[role(pid, self._stack_pid)] += cpu_seconds(pid)
            except FileNotFoundError:  # gone since it was listed
                continue
        return used

    def settle(self, timeout: float = 30) -> None:
        """Wait until the stack is idle: what the last requests set off is done."""
        deadline = time.monotonic() + timeout
        before = sum(self.read().values())
        while time.monotonic() < deadline:
            time.sleep(IDLE_WINDOW_SECONDS)
            now = sum(self.read().values())
            if now - before < IDLE_SHARE * IDLE_WINDOW_SECONDS:
                return
            before = now


def measure(call: Callable, meter: CpuMeter, count: int, concurrency: int) -> tuple:
    """(requests per second, CPU seconds per request by role) of one run: the stack's
    until it is idle again, the clients' (this process) while they send."""
    meter.settle()
    before = meter.read()
    clients_before = time.process_time()
    rate = throughput(call, count, concurrency)
    clients = time.process_time() - clients_before
    meter.settle()
    spent = meter.read()
    spent.subtract(before)
    spent[CLIENTS_ROLE] = clients
    return rate, Counter({name: seconds / count for name, seconds in spent.items()})


def total(per_role: Counter) -> float:
    return sum(per_role.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    stack = StackProcess().start()
    try:
        http = StackClient(stack, stack.token)
        meter = CpuMeter(stack.proc.pid)
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
            f"| request | req/s, 1 client | req/s, 4 clients | ratio (median of "
            f"{args.rounds} x {args.requests}) | CPU ms per request, 1 client | cores "
            f"1 client keeps busy | ceiling for 4 clients on {cores} cores |"
        )
        print("|---|---|---|---|---|---|---|")
        breakdowns = {}
        for label, call in routes.items():
            # Every pool at the size 4 clients grow it to, the asynchronous ones included.
            throughput(call, WARM_REQUESTS, max(CLIENTS))
            rates: dict[int, list[float]] = {clients: [] for clients in CLIENTS}
            cpu: dict[int, list[Counter]] = {clients: [] for clients in CLIENTS}
            for round_ in range(args.rounds):
                order = CLIENTS if round_ % 2 == 0 else tuple(reversed(CLIENTS))
                for clients in order:
                    rate, per_request = measure(call, meter, args.requests, clients)
                    rates[clients].append(rate)
                    cpu[clients].append(per_request)
            one, four = (statistics.median(rates[clients]) for clients in CLIENTS)
            per_request = statistics.median(total(spent) for spent in cpu[1])
            busy = per_request * one
            print(
                f"| {label} | {one:.0f} | {four:.0f} | {four / one:.2f}x | "
                f"{per_request * 1000:.1f} | {busy:.2f} | "
                f"{min(cores / busy, max(CLIENTS)):.2f}x |"
            )
            breakdowns[label] = {
                name: statistics.median(spent[name] for spent in cpu[1]) for name in cpu[1][0]
            }
        names = sorted(
            {name for breakdown in breakdowns.values() for name in breakdown},
            key=lambda name: -max(breakdown.get(name, 0) for breakdown in breakdowns.values()),
        )
        print("\nCPU ms per request, 1 client, by process (median of the rounds):\n")
        print("| process | " + " | ".join(breakdowns) + " |")
        print("|---|" + "---|" * len(breakdowns))
        for name in names:
            cells = " | ".join(f"{b.get(name, 0) * 1000:.1f}" for b in breakdowns.values())
            print(f"| {name} | {cells} |")
        http.notify("POST", "/notificaciones", json={"warm": True})
        http.gateway("GET", "/api/envios")
        meter.settle()
        pids = descendants(stack.proc.pid)
        memory = rss_mib(stack.proc.pid) + sum(rss_mib(pid) for pid in pids)
        print(
            f"\nmemory with every pool warm: {memory:.0f} MiB resident "
            f"(the stack {rss_mib(stack.proc.pid):.0f} MiB, {len(pids)} processes)"
        )
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
