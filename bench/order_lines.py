"""Rerunnable benchmark: what approving an order of several lines costs, against as many
one-line orders (docs/architecture.md, "every line reserved or none").

Usage: `make bench-lines` (or .venv/bin/python bench/order_lines.py [--rounds N]).

On the AWS path in this process (tests.support.recorded_aws: API Gateway and its
authorizer in front of each function, the orders function invoking the inventory's)
against a fresh emulator: 3 warehouses and 20 products, each with 2 units in each
warehouse. Each round places an order of 20 lines of 5 units each (so every line takes
its units from the 3 warehouses: 2, 2 and 1) and 20 orders of one line of one of 20
other products kept in PRINCIPAL, then approves them all, one request at a time, timing
each and counting its DynamoDB work (botocore's events) and its write units as DynamoDB
bills them: 1 per KB (rounded up) of each item written, twice in a transaction, the
larger of an updated item's two sizes (the items are read back to size them).

It prints, as medians over the rounds, the write units and the time of one 20-line
approval, of the 20 one-line approvals together and of one of them, the two ratios the
targets bound (at most 2x the write units of the 20 one-line approvals; at most 3x the
time of one), and what one line adds to an approval's write units.
"""

import argparse
import json
import math
import os
import statistics
import time

import boto3

from common.platform.settings import AllSettings
from infra import template
from infra.dev.tokens import local_token
from infra.local import LOCAL_AWS_ENV
from infra.local.emulator import emulator
from infra.local.signing_key import new_key
from tests.support.metering import item_bytes, metered
from tests.support.recorded_aws import RecordedAws
from tests.support.samples import PRODUCT

LINES = 20
UNITS = 5  # a line's, over three warehouses holding 2 each
CUSTOMER = {
    "userId": 1,
    "userEmail": "a@b.co",
    "clienteNombre": "A",
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
}


class Bench:
    def __init__(self, aws: RecordedAws, token: str):
        self.aws, self.token = aws, token
        self.dynamodb = boto3.client("dynamodb")

    def call(self, method: str, path: str, route: str, body=None, query=None) -> dict:
        answer = self.aws.request(method, path, route, self.token, body=body, query=query)
        assert answer["statusCode"] < 300, answer
        return json.loads(answer["body"]) if answer.get("body") else {}

    def product(self, sku: str, units: dict[int, int]) -> int:
        made = self.call(
            "POST", "/api/inventario", "/api/inventario", {**PRODUCT, "sku": sku, "stockActual": 0}
        )
        for bodega, count in units.items():
            self.call(
                "PUT",
                f"/api/inventario/{made['id']}/existencias/{bodega}",
                "/api/inventario/{id}/existencias/{bodegaId}",
                {"stockActual": count},
            )
        return made["id"]

    def order(self, lines: list[tuple[int, int]]) -> dict:
        sent = {**CUSTOMER, "lineas": [{"productoId": p, "cantidad": q} for p, q in lines]}
        return self.call("POST", "/api/pedidos", "/api/pedidos", sent)

    def approve(self, order: dict) -> tuple[float, float, float]:
        """(seconds, write units as the meter counts them, write units as billed)."""
        path = f"/api/pedidos/{order['id']}/status"
        with metered() as meter:
            started = time.perf_counter()
            self.call("PATCH", path, "/api/pedidos/{id}/status", query={"status": "APROBADO"})
            took = time.perf_counter() - started
        return took, meter.write_units, self.billed(order)

    def billed(self, order: dict) -> float:
        """What the approval's writes cost, by the size of each item it wrote: its lines
        and their products, in a transaction (2 a KB), and the order (1 a KB)."""

        def size(table: str, key: dict) -> int:
            return item_bytes(self.dynamodb.get_item(TableName=table, Key=key)["Item"])

        units = 0.0
        for line in order["lineas"]:
            ledger = {"causa": {"S": f"PEDIDO#{order['id']}"}, "linea": {"N": str(line["linea"])}}
            for table, key in (
                ("StockLedgerTable", ledger),
                ("ProductsTable", {"id": {"N": str(line["productoId"])}}),
            ):
                units += 2 * math.ceil(size(table, key) / 1024)
        return units + math.ceil(size("OrdersTable", {"id": {"N": str(order["id"])}}) / 1024)


def rounds(bench: Bench, count: int) -> list[dict]:
    warehouses = [1] + [
        bench.call(
            "POST", "/api/bodegas", "/api/bodegas", {"codigo": c, "nombre": c, "prioridad": p}
        )["id"]
        for c, p in (("NORTE", 10), ("SUR", 20))
    ]
    spread = [bench.product(f"L-{i}", dict.fromkeys(warehouses, 2 * count)) for i in range(LINES)]
    single = [bench.product(f"S-{i}", {1: 10 * count}) for i in range(LINES)]
    measured = []
    for _ in range(count):
        several = bench.approve(bench.order([(p, UNITS) for p in spread]))
        ones = [bench.approve(bench.order([(p, 1)])) for p in single]
        measured.append(
            {
                "several": several,
                "ones_seconds": sum(o[0] for o in ones),
                "ones_units": sum(o[1] for o in ones),
                "ones_billed": sum(o[2] for o in ones),
                "one": statistics.median(o[0] for o in ones),
                "one_billed": statistics.median(o[2] for o in ones),
            }
        )
    return measured


def report(measured: list[dict]) -> None:
    def median(pick) -> float:
        return statistics.median(pick(m) for m in measured)

    several_s = median(lambda m: m["several"][0])
    several_units = median(lambda m: m["several"][1])
    several_billed = median(lambda m: m["several"][2])
    ones_s, ones_units = median(lambda m: m["ones_seconds"]), median(lambda m: m["ones_units"])
    ones_billed = median(lambda m: m["ones_billed"])
    one_s, one_billed = median(lambda m: m["one"]), median(lambda m: m["one_billed"])
    rows = [
        (f"one order of {LINES} lines over 3 warehouses", several_s, several_units, several_billed),
        (f"{LINES} one-line orders, together", ones_s, ones_units, ones_billed),
        ("one one-line order", one_s, ones_units / LINES, one_billed),
    ]
    print(f"{len(measured)} rounds; medians")
    print("| approval | ms | write units (meter) | write units (billed) |")
    print("|---|---|---|---|")
    for name, seconds, units, billed in rows:
        print(f"| {name} | {seconds * 1000:.1f} | {units:.0f} | {billed:.0f} |")
    print(
        f"write units: {several_billed / ones_billed:.2f}x those of {LINES} one-line "
        "approvals (target: at most 2x)"
    )
    print(f"latency: {several_s / one_s:.2f}x one one-line approval (target: at most 3x)")
    per_line = (several_billed - one_billed) / (LINES - 1)
    print(
        f"one more line: {per_line:.2f} write units (its line and its product in the "
        "transaction, and the order's item growing)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    for key, value in LOCAL_AWS_ENV.items():
        os.environ.setdefault(key, value)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    os.environ.setdefault("JWT_SECRET", new_key())
    dynamodb = emulator().start()
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = dynamodb.url
    try:
        template.create_tables(boto3.client("dynamodb"))
        settings = AllSettings.from_env(
            {
                **os.environ,
                "INVENTORY_FUNCTION": "Inventory",
                "ORDERS_FUNCTION": "Orders",
                "ORDER_EVENTS_FUNCTION": "OrderEvents",
            }
        )
        bench = Bench(RecordedAws(settings), local_token(settings.tokens))
        report(rounds(bench, args.rounds))
    finally:
        dynamodb.stop()


if __name__ == "__main__":
    main()
