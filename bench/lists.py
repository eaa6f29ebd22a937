"""Rerunnable benchmark: what each list costs as the tables grow (docs/api.md#lists).

Usage: `make bench-lists` (or .venv/bin/python bench/lists.py [--sizes 1000 10000]).
For each size it loads that many products (1% in alert) and orders (statuses in turn)
straight into a fresh emulator, serves the gateway on a free port in this process, and
times each list request, counting the DynamoDB items it reads through botocore's events.
The time of a page should not depend on the size of the table: the last column is the
ratio of each request's median time to its median at the first size, in the same run.
"""

import argparse
import os
import statistics
import time
from decimal import Decimal

import boto3
import requests

from app import create_gateway
from common.orders.model import OrderModel
from common.platform import aws, keys
from common.platform.settings import AllSettings
from common.storage.counters import CounterModel
from common.storage.paging import issue_token
from infra import template
from infra.dev.tokens import local_token
from infra.local import LOCAL_AWS_ENV
from infra.local.emulator import emulator
from infra.local.signing_key import new_key
from inventory import repository as products
from inventory.model import ProductModel
from inventory.rules import Product
from orders import repository as orders
from orders.rules import STATUSES, Order
from tests.support.metering import metered
from tests.support.served_app import serve

REPEAT = 15


def load(size: int) -> None:
    """Products and orders written as their repositories write them, 25 to a request."""
    with aws.acting_as("InventoryFunction"), ProductModel.batch_write() as batch:
        for i in range(1, size + 1):
            in_alert = i % 100 == 0
            batch.save(
                products.item_of(
                    Product(
                        id=i,
                        sku=f"B-{i}",
                        nombre="Caja",
                        precio_unitario=Decimal("9.99"),
                        stock_actual=0 if in_alert else 50,
                        umbral_minimo=5,
                        bodega="Norte",
                        descripcion=None,
                    )
                )
            )
    with aws.acting_as("OrdersFunction"), OrderModel.batch_write() as batch:
        for i in range(1, size + 1):
            batch.save(
                orders.item_of(
                    Order(
                        id=i,
                        user_id=1,
                        user_email="b@example.com",
                        cliente_nombre="Bench",
                        total=Decimal("19.99"),
                        status=STATUSES[i % len(STATUSES)],
                        tipo_pedido="NACIONAL",
                        destino="Lima",
                        observaciones=None,
                        producto_id=1,
                        cantidad=1,
                        creado_en="2026-11-22T10:00:00.000000",
                    )
                )
            )
    with aws.acting_as("OrdersFunction"):
        for counter in ("products", "orders"):
            CounterModel(counter, value=size).save()


def measure(url: str, bearer: str, path: str) -> tuple[float, int, int, int, float]:
    """Median ms over REPEAT calls; of one: items read, returned, DynamoDB requests and
    read units (tests/support/metering.py)."""
    headers = {"Authorization": f"Bearer {bearer}"}
    requests.get(url + path, headers=headers, timeout=60)  # warm
    times = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        requests.get(url + path, headers=headers, timeout=60)
        times.append((time.perf_counter() - started) * 1000)
    with metered() as meter:
        returned = len(requests.get(url + path, headers=headers, timeout=60).json())
    return (
        statistics.median(times),
        meter.items_read,
        returned,
        sum(meter.operations.values()),
        meter.read_units,
    )


def run(size: int) -> dict[str, tuple]:
    client = boto3.client("dynamodb")
    template.drop_tables(client)
    template.create_tables(client)
    settings = AllSettings.from_env()
    gateway = create_gateway(settings)  # binds the models to this emulator's tables
    load(size)
    server = serve(gateway)
    bearer = local_token(settings.tokens)
    # The token a client walking the catalog would hold half way through it.
    page_keys = keys.page_token_keys(settings.pages, settings.cloud)
    token = issue_token(page_keys, "/api/inventario", {}, size // 2)
    paths = {
        "GET /api/inventario?limit=50 (first page)": "/api/inventario?limit=50",
        "GET /api/inventario?limit=50 (a page in the middle)": (
            f"/api/inventario?limit=50&nextToken={token}"
        ),
        "GET /api/inventario/alertas?limit=10": "/api/inventario/alertas?limit=10",
        "GET /api/inventario/alertas (all of the 1%)": "/api/inventario/alertas",
        "GET /api/pedidos?status=APROBADO&limit=50": "/api/pedidos?status=APROBADO&limit=50",
        "GET /api/pedidos?limit=50": "/api/pedidos?limit=50",
    }
    try:
        return {label: measure(server.url, bearer, path) for label, path in paths.items()}
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    for key, value in LOCAL_AWS_ENV.items():
        os.environ.setdefault(key, value)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")  # the table, not request lines
    os.environ.setdefault("JWT_SECRET", new_key())  # none is built in: this run's own
    dynamodb = emulator().start()
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = dynamodb.url
    try:
        results = {size: run(size) for size in args.sizes}
    finally:
        dynamodb.stop()
    first = args.sizes[0]
    print(
        "| request | rows | returned | items read | DynamoDB requests | read units | "
        f"median ms | vs {first} rows |\n|---|---|---|---|---|---|---|---|"
    )
    for label in results[first]:
        for size in args.sizes:
            millis, read, returned, requests_made, units = results[size][label]
            ratio = millis / results[first][label][0]
            print(
                f"| {label} | {size} | {returned} | {read} | {requests_made} | {units:g} | "
                f"{millis:.1f} | {ratio:.2f}x |"
            )


if __name__ == "__main__":
    main()
