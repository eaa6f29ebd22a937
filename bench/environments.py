"""Local execution environments made as SnapStart makes them (infra/local/runtime.py): how
soon a new one is ready, and what the whole stack holds in memory after a contract's
worth of requests.

Usage: `make bench-environments` (or .venv/bin/python bench/environments.py [--rounds N]).
Each round starts `python -m infra.dev` on free ports, sends the requests of the
contract's black-box checks (interface.md's routes: products, orders through their
lifecycle, shipments, lists and their pages, notifications, sign-in) at 8 clients, so
that every function the gateway reaches has several environments, and reads:

- each environment's readiness, from the stack's log ("execution environment ready":
  from the pool asking for it until its after-restore hooks are done), apart from each
  function's first (which waited for the function's init, "snapshot made");
- the memory of every process of the stack, by PSS (proportional set size: a page
  shared copy-on-write between a snapshot and its forks is counted once, split among
  them) and by RSS (each process counts all it maps, as the earlier figures did).

The yardstick, in the same round: how long a bare interpreter takes to start
(`python -c pass`), the least a new process costs.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.support.processes import functions_of, resident_mib, session_members
from tests.support.samples import ORDER, PRODUCT, SHIPMENT
from tests.support.stack_process import StackClient, StackProcess

CLIENTS = 8
TARGET_READY_MS = 20
TARGET_PSS_GIB = 1.0


def pss_mib(pid: int) -> float:
    """A process's proportional set size, in MiB (0 once it has ended)."""
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0.0
    for line in rollup.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return 0.0


def interpreter_start_ms(times: int = 10) -> float:
    taken = []
    for _ in range(times):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        taken.append((time.perf_counter() - started) * 1000)
    return statistics.median(taken)


def contract_round(http: StackClient, n: int) -> None:
    """One client's pass over the contract's routes, with data of its own."""
    sku = f"ENV-{uuid.uuid4().hex[:10]}"
    product = http.gateway(
        "POST", "/api/inventario", json={**PRODUCT, "sku": sku, "stockActual": 50}
    )
    assert product.status_code == 201, product.text
    ident = product.json()["id"]
    for path in ("/api/inventario", f"/api/inventario/{ident}", "/api/inventario/alertas"):
        http.gateway("GET", path, params={"limit": "5"})
    http.gateway("GET", f"/api/inventario/{ident}/stock", params={"cantidad": "2"})
    order = http.gateway("POST", "/api/pedidos", json={**ORDER, "productoId": ident, "userId": n})
    assert order.status_code == 201, order.text
    order_id = order.json()["id"]
    for status in ("APROBADO", "EN_ENVIO", "ENTREGADO"):
        http.gateway("PATCH", f"/api/pedidos/{order_id}/status", params={"status": status})
    http.gateway("GET", f"/api/pedidos/{order_id}/historial")
    http.gateway("GET", "/api/pedidos", params={"limit": "5"})
    shipment = http.gateway("POST", "/api/envios", json={**SHIPMENT, "pedidoId": order_id})
    assert shipment.status_code == 201, shipment.text
    http.gateway(
        "PATCH", f"/api/envios/{shipment.json()['id']}/status", params={"status": "EN_RUTA"}
    )
    http.gateway("GET", "/api/envios", params={"pedidoId": str(order_id)})
    http.notify("POST", "/notificaciones", json={"type": "LOW_STOCK_ALERT", "productId": ident})
    email = f"env-{uuid.uuid4().hex[:10]}@example.com"
    http.gateway(
        "POST",
        "/api/auth/register",
        auth=False,
        json={"email": email, "password": "A-long-Passphrase-2026"},
    )
    http.gateway(
        "POST",
        "/api/auth/login",
        auth=False,
        json={"email": email, "password": "A-long-Passphrase-2026"},
    )


def readiness(lines: list[str]) -> list[float]:
    """The ready times of the environments forked from an existing snapshot."""
    seen: set[str] = set()
    forks = []
    for line in lines:
        if '"execution environment ready"' not in line:
            continue
        said = json.loads(line)
        if said["function"] in seen:
            forks.append(said["ready_ms"])
        seen.add(said["function"])
    return forks


def by_role(stack: StackProcess, pids: list[int]) -> dict[str, float]:
    """PSS in MiB of the stack's processes by what they are."""
    functions = functions_of(stack.lambda_url)
    snapshots = {its["snapshot"] for its in functions.values()}
    environments = {pid for its in functions.values() for pid in its["environments"]}
    roles: dict[str, float] = {}
    for pid in pids:
        if pid == stack.proc.pid:
            role = "stack"
        elif pid in snapshots:
            role = "snapshots"
        elif pid in environments:
            role = "environments"
        elif b"aws_process" in Path(f"/proc/{pid}/cmdline").read_bytes():
            role = "emulator"
        else:
            role = "starter and other"
        roles[role] = roles.get(role, 0.0) + pss_mib(pid)
    return roles


def memory(stack: StackProcess) -> dict:
    pids = [stack.proc.pid, *session_members(stack.proc.pid)]
    return {
        "by_role": by_role(stack, pids),
        "pss_mib": sum(pss_mib(pid) for pid in pids),
        "rss_mib": sum(resident_mib(pid) for pid in pids),
        "processes": len(pids),
    }


def one_round(passes: int) -> dict:
    """The contract's requests one client at a time (as its checks send them), memory
    read; then at CLIENTS at once (the functions scale out), memory read again."""
    floor = interpreter_start_ms()
    # The local Lambda service says each snapshot made and environment ready at DEBUG.
    stack = StackProcess({"POWERTOOLS_LOG_LEVEL": "DEBUG"}).start()
    try:
        http = StackClient(stack, stack.token)
        for n in range(passes):
            contract_round(http, n + 1)
        time.sleep(2)  # the asynchronous work the requests set off (events, webhooks)
        sequential = memory(stack)
        with ThreadPoolExecutor(CLIENTS) as pool:
            list(pool.map(lambda n: contract_round(http, n + 1), range(passes)))
        time.sleep(2)
        return {
            "floor_ms": floor,
            "ready_ms": readiness(stack.output().splitlines()),
            "sequential": sequential,
            "concurrent": memory(stack),
        }
    finally:
        stack.stop()


def report(results: list[dict]) -> None:
    print(
        "| round | environments forked | ready ms, median | p95 | max | a new interpreter, ms "
        "| ready / interpreter | after 1 client: processes, PSS GiB (RSS) "
        f"| after {CLIENTS} clients: processes, PSS GiB (RSS) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for number, result in enumerate(results, 1):
        ready = sorted(result["ready_ms"]) or [float("nan")]
        median = statistics.median(ready)
        after = [
            f"{m['processes']}, {m['pss_mib'] / 1024:.2f} ({m['rss_mib'] / 1024:.2f})"
            for m in (result["sequential"], result["concurrent"])
        ]
        cells = [
            number,
            len(result["ready_ms"]),
            f"{median:.1f}",
            f"{ready[round(0.95 * (len(ready) - 1))]:.1f}",
            f"{ready[-1]:.1f}",
            f"{result['floor_ms']:.1f}",
            f"{median / result['floor_ms']:.2f}",
            *after,
        ]
        print("| " + " | ".join(map(str, cells)) + " |")
    for number, result in enumerate(results, 1):
        for phase in ("sequential", "concurrent"):
            parts = ", ".join(
                f"{role} {mib:.0f}" for role, mib in sorted(result[phase]["by_role"].items())
            )
            print(f"\nRound {number}, {phase}, PSS MiB by process: {parts}")


def verdict(results: list[dict]) -> None:
    worst = max(statistics.median(r["ready_ms"]) for r in results if r["ready_ms"])
    pss = max(r["sequential"]["pss_mib"] for r in results) / 1024
    ready_verdict = "PASS" if worst <= TARGET_READY_MS else "FAIL"
    pss_verdict = "PASS" if pss <= TARGET_PSS_GIB else "FAIL"
    print(
        f"\nBudget: a new environment ready in {worst:.1f} ms at the median of the worst round "
        f"(target {TARGET_READY_MS} ms): {ready_verdict}; the stack's memory after the "
        f"contract's requests {pss:.2f} GiB by PSS at the most (target {TARGET_PSS_GIB} GiB): "
        f"{pss_verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--passes", type=int, default=32, help="passes over the contract")
    args = parser.parse_args()
    results = [one_round(args.passes) for _ in range(args.rounds)]
    report(results)
    verdict(results)


if __name__ == "__main__":
    main()
