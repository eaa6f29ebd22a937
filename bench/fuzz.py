"""Rerunnable fuzz pass: every operation of docs/openapi.yaml against a stack already
holding thousands of orders, writes with and without an Idempotency-Key.

Usage: `make bench-fuzz` (or .venv/bin/python bench/fuzz.py [--orders N] [--examples N]).

It starts `python -m infra.dev` on free ports, as `make run` does, places
`--orders` orders (approving every third), then asks schemathesis for `--examples`
requests per operation and generation mode (valid inputs, then invalid ones: the
boundaries of every schema and random values), seeded so that a run is the same every
time. Each write (POST, PUT, PATCH, DELETE) is sent twice: without a key and with one
of its own. Every answer is held to the document as tests/e2e/test_fuzzing.py holds it
(status, Content-Type, headers, body; no 5xx but a documented one). It prints one
Markdown table: requests, the 5xx among them, the answers the document does not
describe, the time a request took (median, 95th percentile, slowest) and the stack's
resident memory; then each 5xx and each undocumented answer, one line each.

The 5xx count is the number that matters (it must be 0, whatever the machine); the
times are this machine's, shared and 2-core: read them as the order of magnitude.
"""

import argparse
import contextlib
import statistics
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import requests
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from tests.support.described import CHECKS, is_notification, load
from tests.support.processes import resident_mib, session_members
from tests.support.samples import ANA_ORDER
from tests.support.stack_process import StackProcess

PRODUCT = {"nombre": "Caja", "precioUnitario": 1, "stockActual": 10**9, "umbralMinimo": 0}
SHIPMENT = {"pedidoId": 1, "tipoEnvio": "EXPRESS", "transportista": "Olva", "destino": "Lima"}
WRITES = {"POST", "PUT", "PATCH", "DELETE"}


def seed(stack: StackProcess, orders: int) -> float:
    """Products 1-3, `orders` orders (every third approved), two shipments and a webhook
    endpoint; the seconds it took."""
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {stack.token}"

    def send(method: str, path: str, **kw) -> requests.Response:
        answer = session.request(method, stack.gateway + path, timeout=60, **kw)
        if answer.status_code not in (200, 201, 204):
            raise SystemExit(
                f"seeding: {method} {path} answered {answer.status_code}: {answer.text}"
            )
        return answer

    started = time.perf_counter()
    for n in (1, 2, 3):
        send("POST", "/api/inventario", json={**PRODUCT, "sku": f"FUZZ-{n}"})

    def place(n: int) -> None:
        order = send("POST", "/api/pedidos", json={**ANA_ORDER, "userId": 1 + n % 50}).json()
        if n % 3 == 0:
            send("PATCH", f"/api/pedidos/{order['id']}/status", params={"status": "APROBADO"})

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(place, range(orders)))
    for _ in (1, 2):
        send("POST", "/api/envios", json=SHIPMENT)
    send("POST", "/api/webhooks", json={"url": "http://127.0.0.1:9/", "eventos": ["pedido.creado"]})
    return time.perf_counter() - started


class Tally:
    def __init__(self) -> None:
        self.seconds: list[float] = []
        self.statuses: Counter = Counter()
        self.server_errors: list[str] = []
        self.undocumented: Counter = Counter()

    def record(self, case, response, keyed: bool) -> None:
        # schemathesis's response: `elapsed` in seconds, a float
        self.seconds.append(float(response.elapsed))
        self.statuses[response.status_code] += 1
        where = f"{case.method.upper()} {case.operation.path}{' (keyed)' if keyed else ''}"
        if response.status_code >= 500:
            self.server_errors.append(f"{where}: {response.status_code} {response.text[:200]}")
        try:
            case.validate_response(response, checks=CHECKS)
        except Exception as failed:  # noqa: BLE001 - schemathesis's failure group
            self.undocumented[f"{where}: {type(failed).__name__}: {str(failed)[:160]}"] += 1


def fuzz(stack: StackProcess, examples: int, seed_value: int, tally: Tally) -> None:
    schema = load(
        {
            "seed": seed_value,
            "generation": {"max-examples": examples, "no-shrink": True},
            "phases": {"stateful": {"enabled": False}},
        }
    )
    session = requests.Session()
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in GenerationMode:
            fuzz_operation(
                stack, session, operation.as_strategy(generation_mode=mode), examples, tally
            )


def fuzz_operation(stack: StackProcess, session, strategy, examples: int, tally: Tally) -> None:
    """The strategy's examples of one operation in one mode, each write twice (without a
    key, then with one of its own)."""

    @given(case=strategy)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def one(case) -> None:
        notification = is_notification(case.operation.path)
        base = stack.notifications if notification else stack.gateway
        headers = {} if notification else {"Authorization": f"Bearer {stack.token}"}
        response = case.call(base_url=base, session=session, headers=headers, timeout=30)
        tally.record(case, response, keyed=False)
        if case.method.upper() in WRITES and not notification:
            keyed = {**headers, "Idempotency-Key": f"fuzz-{uuid.uuid4()}"}
            response = case.call(base_url=base, session=session, headers=keyed, timeout=30)
            tally.record(case, response, keyed=True)

    # No input of this mode, for an operation with nothing to make invalid (GET /).
    with contextlib.suppress(Unsatisfiable):
        one()


def stack_mib(stack: StackProcess) -> float:
    return sum(resident_mib(pid) for pid in session_members(stack.proc.pid))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=3000)
    parser.add_argument("--examples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    stack = StackProcess().start()
    try:
        seeded = seed(stack, args.orders)
        before = stack_mib(stack)
        tally = Tally()
        started = time.perf_counter()
        fuzz(stack, args.examples, args.seed, tally)
        took = time.perf_counter() - started
        after = stack_mib(stack)
    finally:
        stack.stop()
    ms = sorted(1000 * s for s in tally.seconds)
    print(f"Seeded {args.orders} orders in {seeded:.0f} s; fuzzed for {took:.0f} s.\n")
    print(
        "| requests | 5xx | undocumented answers | median ms | p95 ms | slowest ms "
        "| stack MiB before / after |"
    )
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {len(ms)} | {len(tally.server_errors)} | {sum(tally.undocumented.values())} "
        f"| {statistics.median(ms):.0f} | {ms[int(len(ms) * 0.95)]:.0f} | {ms[-1]:.0f} "
        f"| {before:.0f} / {after:.0f} |"
    )
    print("\nStatuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(tally.statuses.items())))
    for line in tally.server_errors:
        print(f"5xx: {line}")
    for line, count in tally.undocumented.most_common():
        print(f"undocumented ({count}x): {line}")
    if tally.server_errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
