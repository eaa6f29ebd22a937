"""Rerunnable benchmark: how a burst of order creates spreads its writes over DynamoDB's
partition keys, and whether it gets through a per-key ceiling (docs/capacity.md).

Usage: `make bench-scale` (or .venv/bin/python bench/scale.py [--orders N] [--clients N]
[--rate R] [--baseline REV]).

Each run starts the local stack as `make run` does, with the emulator counting the
writes of every partition key of every table and index (DYNAMODB_PARTITION_METER), and
places N orders from several clients at once, for many customers, over HTTP. It waits
for the writes that follow the answers (the event's listener, the outbox) to land, then
reads the emulator's count.

1. Metered: the share of all the burst's writes that the hottest key took. At most 2%
   keeps every key under DynamoDB's 1,000 writes a second at 10,000 orders a second.
2. Throttled: the same burst with every key limited to `--rate` writes a second
   (DYNAMODB_PARTITION_WRITE_RATE), as DynamoDB limits a partition: the answers by
   status, and the requests the emulator refused (the SDK retries those).

`--baseline REV` runs both first against the platform as it was at REV (its functions,
layer and template, under this checkout's local stack and meter): the "before".

It prints Markdown tables and, last, one line: `hottest key: <percent>% of <n> writes
(<table or index>)` for the metered burst of this checkout.
"""

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import requests

from tests.support.checkout import copy_checkout
from tests.support.partition_meter import settled, zeroed
from tests.support.stack_process import StackClient, StackProcess

ROOT = Path(__file__).resolve().parent.parent
PRODUCTS = 10
TOP = 8  # the keys a burst shows


@dataclass
class Burst:
    label: str
    statuses: Counter
    seconds: float
    report: dict

    @property
    def hottest(self) -> dict:
        return self.report["hottest"][0]

    @property
    def share(self) -> float:
        return 100 * self.hottest["writes"] / self.report["writes"]

    @property
    def where(self) -> str:
        key = self.hottest
        return key["table"] if key["index"] is None else f"{key['table']}/index/{key['index']}"


def burst(label: str, env: dict, args, root: Path = ROOT) -> Burst:
    stack = StackProcess({**env, "POWERTOOLS_LOG_LEVEL": "WARNING"}, root=root).start()
    try:
        http = StackClient(stack, stack.token)
        products = [
            http.gateway(
                "POST",
                "/api/inventario",
                json={
                    "sku": f"SCALE-{n}",
                    "nombre": "Caja",
                    "precioUnitario": 1,
                    "stockActual": 10**7,
                    "umbralMinimo": 0,
                },
            ).json()["id"]
            for n in range(PRODUCTS)
        ]
        settled(stack, TOP)
        zeroed(stack)

        def place(n: int) -> str:
            """The answer's status, with its error code if it is one."""
            try:
                answer = http.gateway(
                    "POST",
                    "/api/pedidos",
                    json={
                        "userId": n % args.customers + 1,
                        "userEmail": "c@example.com",
                        "clienteNombre": "Cliente",
                        "total": 1,
                        "tipoPedido": "NACIONAL",
                        "destino": "Lima",
                        "productoId": products[n % PRODUCTS],
                        "cantidad": 1,
                    },
                )
            except requests.RequestException:
                return "no answer"
            if answer.status_code < 300:
                return str(answer.status_code)
            try:
                return f"{answer.status_code} {answer.json().get('error')}"
            except ValueError:
                return str(answer.status_code)

        started = time.monotonic()
        with ThreadPoolExecutor(args.clients) as pool:
            statuses = Counter(pool.map(place, range(args.orders)))
        seconds = time.monotonic() - started
        return Burst(label, statuses, seconds, settled(stack, TOP))
    finally:
        stack.stop()


def baseline_checkout(revision: str) -> tuple[Path, dict]:
    """This checkout with the platform's code and template of `revision`, and the
    environment that makes the stack import them."""
    root = copy_checkout(Path(tempfile.mkdtemp(prefix="bench-scale-")))
    for part in ("functions", "layers/common"):
        shutil.rmtree(root / part)
    archive = subprocess.run(
        ["git", "archive", revision, "functions", "layers/common", "infra/template.yaml"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    path = os.pathsep.join(str(root / part) for part in ("functions", "layers/common", "."))
    return root, {"PYTHONPATH": path}


def runs(label: str, args, root: Path = ROOT, env: dict | None = None) -> list[Burst]:
    env = env or {}
    return [
        burst(f"{label}, metered", {**env, "DYNAMODB_PARTITION_METER": "1"}, args, root),
        burst(
            f"{label}, each key limited to {args.rate:g} writes a second",
            {**env, "DYNAMODB_PARTITION_WRITE_RATE": str(args.rate)},
            args,
            root,
        ),
    ]


def print_tables(results: list[Burst], args) -> None:
    print(f"{args.orders} orders from {args.clients} clients for {args.customers} customers\n")
    print(
        "| run | answers | seconds | orders/s | writes | hottest key | its writes | "
        "share | its peak writes/s | requests throttled |\n|---|---|---|---|---|---|---|"
        "---|---|---|"
    )
    for run in results:
        answers = ", ".join(f"{n} x {status}" for status, n in sorted(run.statuses.items()))
        key = run.hottest
        print(
            f"| {run.label} | {answers} | {run.seconds:.1f} | "
            f"{args.orders / run.seconds:.0f} | {run.report['writes']} | {run.where} "
            f"`{key['key']}` | {key['writes']} | {run.share:.2f}% | "
            f"{key['peakPerSecond']} | {run.report['throttled']} |"
        )
    for run in results:
        if "metered" not in run.label:
            continue
        print(f"\n**{run.label}: the hottest keys** ({run.report['keys']} keys written)\n")
        print("| table or index | key | writes | share | peak writes/s |\n|---|---|---|---|---|")
        for key in run.report["hottest"]:
            where = key["table"] if key["index"] is None else f"{key['table']}/index/{key['index']}"
            print(
                f"| {where} | `{key['key']}` | {key['writes']} | "
                f"{100 * key['writes'] / run.report['writes']:.2f}% | "
                f"{key['peakPerSecond']} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--customers", type=int, default=200)
    parser.add_argument(
        "--rate", type=float, default=10, help="writes a second per key in the throttled run"
    )
    parser.add_argument(
        "--baseline", metavar="REV", help="run first against the platform at this git revision"
    )
    args = parser.parse_args()
    results: list[Burst] = []
    if args.baseline:
        root, env = baseline_checkout(args.baseline)
        try:
            results += runs(f"before ({args.baseline})", args, root, env)
        finally:
            shutil.rmtree(root)
    now = runs("now", args)
    results += now
    print_tables(results, args)
    metered = now[0]
    print(
        f"\nhottest key: {metered.share:.2f}% of {metered.report['writes']} writes "
        f"({metered.where})"
    )


if __name__ == "__main__":
    main()
