"""Rerunnable benchmark: what each request costs on AWS, and what the layer weighs.

Usage: `make bench-costs` (or .venv/bin/python bench/costs.py).
1. Every write route, run on the AWS path in this process (tests.support.recorded_aws: API
   Gateway and its authorizer in front of each function, functions invoking each other
   through a recording Lambda client) against a fresh emulator: its DynamoDB operations
   and estimated request units (botocore's events), and for an order the API Gateway
   requests and Lambda invocations.
2. The layer, installed the old way (pip resolving every dependency, as SAM's python
   builder did) and the new way (layers/common/Makefile: the pinned runtime closure).
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import boto3

from common.platform.settings import AllSettings, Cloud
from infra import template
from infra.dev.tokens import local_token
from infra.local import LOCAL_AWS_ENV
from infra.local.emulator import emulator
from infra.local.signing_key import new_key
from shipping.repository import TRIM_SLACK
from tests.support.metering import item_bytes, metered
from tests.support.recorded_aws import RecordedAws
from tests.support.samples import ORDER, PRODUCT, SHIPMENT

ROOT = Path(__file__).resolve().parent.parent
# A shipment's status changes, past the history's bound and its trimming.
HISTORY_CHANGES = 130


def routes(aws: RecordedAws, token: str) -> None:
    def call(method, path, route, body=None, query=None):
        response = aws.request(method, path, route, token, body=body, query=query)
        assert response["statusCode"] < 300, response
        return json.loads(response["body"]) if response.get("body") else None

    product = call("POST", "/api/inventario", "/api/inventario", {**PRODUCT, "sku": "C-0"})
    other = call("POST", "/api/inventario", "/api/inventario", {**PRODUCT, "sku": "C-2"})
    order = call("POST", "/api/pedidos", "/api/pedidos", {**ORDER, "productoId": product["id"]})
    cancelled = call("POST", "/api/pedidos", "/api/pedidos", {**ORDER, "productoId": product["id"]})
    shipment = call("POST", "/api/envios", "/api/envios", SHIPMENT)

    def move(placed: dict, status: str) -> dict:
        return call(
            "PATCH",
            f"/api/pedidos/{placed['id']}/status",
            "/api/pedidos/{id}/status",
            query={"status": status},
        )

    move(cancelled, "APROBADO")
    cases = [
        (
            "POST /api/inventario",
            lambda: call("POST", "/api/inventario", "/api/inventario", PRODUCT),
        ),
        (
            "PUT /api/inventario/{id}, same sku",
            lambda: call(
                "PUT",
                f"/api/inventario/{product['id']}",
                "/api/inventario/{id}",
                {**PRODUCT, "sku": "C-0", "stockActual": 3},
            ),
        ),
        (
            "PUT /api/inventario/{id}, new sku",
            lambda: call(
                "PUT",
                f"/api/inventario/{product['id']}",
                "/api/inventario/{id}",
                {**PRODUCT, "sku": "C-9"},
            ),
        ),
        (
            "DELETE /api/inventario/{id}",
            lambda: call("DELETE", f"/api/inventario/{other['id']}", "/api/inventario/{id}"),
        ),
        (
            "POST /api/pedidos",
            lambda: call(
                "POST", "/api/pedidos", "/api/pedidos", {**ORDER, "productoId": product["id"]}
            ),
        ),
        ("PATCH /api/pedidos/{id}/status, approve", lambda: move(order, "APROBADO")),
        ("PATCH /api/pedidos/{id}/status, ship", lambda: move(order, "EN_ENVIO")),
        ("PATCH /api/pedidos/{id}/status, deliver", lambda: move(order, "ENTREGADO")),
        ("PATCH /api/pedidos/{id}/status, cancel approved", lambda: move(cancelled, "CANCELADO")),
        ("POST /api/envios", lambda: call("POST", "/api/envios", "/api/envios", SHIPMENT)),
        (
            "PATCH /api/envios/{id}/status",
            lambda: call(
                "PATCH",
                f"/api/envios/{shipment['id']}/status",
                "/api/envios/{id}/status",
                query={"status": "EN_RUTA"},
            ),
        ),
    ]
    aws.deliver_queued()
    print(
        "| request (AWS path), its asynchronous invocations included | DynamoDB operations "
        "| WRU | RRU | API Gateway requests | Lambda invocations (sync + async) "
        "| apart: counter's block writes, breaker state reads |\n"
        "|---|---|---|---|---|---|---|"
    )
    for label, case in cases:
        aws.counts.clear()
        with metered() as meter:
            case()
            aws.deliver_queued()  # the order's event, handled as Lambda would next
        ops = ", ".join(f"{n} {op}" for op, n in sorted(meter.operations.items()))
        invocations = (
            f"{aws.counts['synchronous Lambda invocations']} + "
            f"{aws.counts['asynchronous Lambda invocations']}"
        )
        print(
            f"| {label} | {ops} | {meter.write_units:g} | {meter.read_units:g} | "
            f"{aws.counts['API Gateway requests']} | {invocations} | "
            f"{meter.counter_writes}, {meter.breaker_reads} |"
        )


def write_units(size: int) -> int:
    """An on-demand write's units: one per KB of the item, the larger of before and after."""
    return max(1, math.ceil(size / 1024))


def history_sizes(aws: RecordedAws, token: str, dynamodb) -> None:
    """What history adds to an item: the bytes of an entry, a status change's write
    units as the history grows, and the item at its largest."""
    response = aws.request("POST", "/api/envios", "/api/envios", token, body=SHIPMENT)
    shipment_id = json.loads(response["body"])["id"]
    table = Cloud.from_env().table_name("ShipmentsTable")

    def size() -> int:
        key = {"id": {"N": str(shipment_id)}}
        return item_bytes(dynamodb.get_item(TableName=table, Key=key)["Item"])

    sizes = [size()]
    for n in range(HISTORY_CHANGES):
        status = ("ASIGNADO", "EN_RUTA")[n % 2]
        aws.request(
            "PATCH",
            f"/api/envios/{shipment_id}/status",
            "/api/envios/{id}/status",
            token,
            query={"status": status},
        )
        sizes.append(size())
    print(
        "\n| a shipment's status changes | item bytes | write units of the next change "
        "(the larger of before and after) |\n|---|---|---|"
    )
    for changes in (0, 1, 2, 10, 50, 99, 100, 99 + TRIM_SLACK, HISTORY_CHANGES):
        before, after = sizes[changes], sizes[min(changes + 1, HISTORY_CHANGES)]
        print(f"| {changes} | {before} | {write_units(max(before, after))} |")
    print(
        f"\nAn entry: {sizes[2] - sizes[1]} bytes (the first one "
        f"{sizes[1] - sizes[0]}: the list itself). Largest item: {max(sizes)} bytes "
        f"(after {sizes.index(max(sizes))} changes; trimmed to the 99 newest once past "
        f"{99 + TRIM_SLACK})."
    )


def installed_size(args: list[str]) -> float:
    target = Path(tempfile.mkdtemp())
    try:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-compile",
                "--target",
                str(target),
                *args,
            ],
            check=True,
            capture_output=True,
        )
        return sum(p.stat().st_size for p in target.rglob("*") if p.is_file()) / 2**20
    finally:
        shutil.rmtree(target)


def layer() -> None:
    requirements = ROOT / "layers" / "common" / "requirements.txt"
    # Its pins without their hashes: pip resolves the dependencies, which have none here.
    pins = [
        line.split()[0]
        for line in requirements.read_text().splitlines()
        if "==" in line and not line.startswith(("#", " "))
    ]
    before = installed_size([*pins, "requests==2.34.2"])
    now = installed_size(["--no-deps", "-r", str(requirements)])
    print("\n| layer | MB (without .pyc) |\n|---|---|")
    print(
        f"| before: dependencies resolved by pip (chalice's CLI, pip, setuptools, "
        f"requests ...) | {before:.1f} |"
    )
    print(f"| now: the pinned runtime closure, --no-deps | {now:.1f} |")


def main() -> None:
    for key, value in LOCAL_AWS_ENV.items():
        os.environ.setdefault(key, value)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    os.environ.setdefault("JWT_SECRET", new_key())  # none is built in: this run's own
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
        aws = RecordedAws(settings)
        routes(aws, local_token(settings.tokens))
        history_sizes(aws, local_token(settings.tokens), boto3.client("dynamodb"))
    finally:
        dynamodb.stop()
    layer()


if __name__ == "__main__":
    main()
