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
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.support.processes import functions_of, resident_mib, session_members
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
RUN_ATTEMPTS = 3


def throughput(call, count: int, concurrency: int) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        statuses = set(pool.map(lambda i: call(i).status_code, range(count)))
    assert statuses <= {200, 201}, statuses
    return count / (time.perf_counter() - started)


def role(pid: int, stack_pid: int, functions: dict[int, str]) -> str:
    """What a process of the stack is: the stack, the emulator, a function's snapshot
    or environment (by the function's name: `functions`, by pid)."""
    if pid == stack_pid:
        return "stack (gateways, Lambda service)"
    if b"infra.local.aws_process" in Path(f"/proc/{pid}/cmdline").read_bytes():
        return "AWS emulator (moto)"
    return functions.get(pid, "other")


def functions_by_pid(lambda_url: str) -> dict[int, str]:
    return {
        pid: name
        for name, its in functions_of(lambda_url).items()
        for pid in [its["snapshot"], *its["environments"]]
        if pid is not None
    }


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of one process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_SECOND


class CpuMeter:
    """CPU seconds spent by each role of the stack's processes."""

    def __init__(self, stack_pid: int, lambda_url: str):
        self._stack_pid, self._lambda_url = stack_pid, lambda_url

    def read(self) -> tuple[Counter, frozenset[int]]:
        """The CPU seconds by role, and which processes there were."""
        used: Counter = Counter()
        seen = set()
        functions = functions_by_pid(self._lambda_url)
        for pid in [self._stack_pid, *session_members(self._stack_pid)]:
            try:
                used[role(pid, self._stack_pid, functions)] += cpu_seconds(pid)
            except OSError:  # ended since it was listed
                continue
            seen.add(pid)
        return used, frozenset(seen)

    def settle(self, timeout: float = 30) -> None:
        """Wait until the stack is idle: what the last requests set off is done."""
        deadline = time.monotonic() + timeout
        before = sum(self.read()[0].values())
        while time.monotonic() < deadline:
            time.sleep(IDLE_WINDOW_SECONDS)
            now = sum(self.read()[0].values())
            if now - before < IDLE_SHARE * IDLE_WINDOW_SECONDS:
                return
            before = now
        print(f"(the stack was still busy after {timeout:g} s; counting anyway)", file=sys.stderr)


def measure(call: Callable, meter: CpuMeter, count: int, concurrency: int) -> tuple:
    """(requests per second, CPU seconds per request by role) of one run: the stack's
    until it is idle again, the clients' (this process) while they send. A run during
    which an environment started or stopped (a scheduled function's first run, an idle
    one reaped) is sent again: an init's CPU, or an ended process's, would be counted
    as the requests'."""
    for _ in range(RUN_ATTEMPTS):
        meter.settle()
        before, processes = meter.read()
        clients_before = time.process_time()
        rate = throughput(call, count, concurrency)
        clients = time.process_time() - clients_before
        meter.settle()
        spent, processes_after = meter.read()
        if processes_after == processes:
            break
        print("(an environment started or stopped during a run: sent again)", file=sys.stderr)
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
    cores = len(os.sched_getaffinity(0))  # the ones this process may use
    stack = StackProcess().start()
    try:
        http = StackClient(stack, stack.token)
        meter = CpuMeter(stack.proc.pid, stack.lambda_url)
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
            f"1 client keeps busy | ceiling for 4 clients on {cores} cores | CPU ms per "
            f"request, 4 clients | share of the {cores} cores busy at 4 clients |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
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
            per_request, per_request_four = (
                statistics.median(total(spent) for spent in cpu[clients]) for clients in CLIENTS
            )
            busy = per_request * one
            # 4 clients can never have more than 4 requests under way: the other bound.
            ceiling = min(cores / busy, max(CLIENTS))
            print(
                f"| {label} | {one:.0f} | {four:.0f} | {four / one:.2f}x | "
                f"{per_request * 1000:.1f} | {busy:.2f} | {ceiling:.2f}x | "
                f"{per_request_four * 1000:.1f} | {per_request_four * four / cores:.0%} |"
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
        pids = session_members(stack.proc.pid)
        memory = resident_mib(stack.proc.pid) + sum(resident_mib(pid) for pid in pids)
        print(
            f"\nmemory with every pool warm: {memory:.0f} MiB resident "
            f"(the stack {resident_mib(stack.proc.pid):.0f} MiB, {len(pids)} processes)"
        )
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
