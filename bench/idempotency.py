"""Rerunnable benchmark: what an Idempotency-Key costs, and what a replay saves
(docs/api.md#retries-without-duplicates-idempotency-key).

Usage: `make bench-idempotency` (or .venv/bin/python bench/idempotency.py [--repeat N]).
It serves the gateway in this process against a fresh emulator and, for each POST, times
N requests without a key, N first requests with a new key, and N replays of one key,
counting the DynamoDB operations of one of each through botocore's events.
"""

import argparse
import itertools
import json
import os
import statistics
import time

import boto3
import requests

from app import create_gateway
from common.platform.logs import get_logger
from common.platform.settings import AllSettings
from infra import template
from infra.dev.tokens import local_token
from infra.local import LOCAL_AWS_ENV
from infra.local.emulator import emulator
from infra.local.http_server import AppServer
from infra.local.signing_key import new_key
from tests.support.fake_lambda import LocalLambda
from tests.support.metering import metered
from tests.support.served_app import ChaliceWsgi

SKUS = itertools.count(1)


def bodies() -> dict:
    return {
        "POST /api/inventario": lambda: {
            "sku": f"I-{next(SKUS)}",
            "nombre": "Caja",
            "precioUnitario": 19.99,
            "stockActual": 10**6,
            "umbralMinimo": 1,
        },
        "POST /api/envios": lambda: {
            "pedidoId": 7,
            "tipoEnvio": "EXPRESS",
            "transportista": "DHL",
            "destino": "Lima",
        },
        "POST /api/pedidos": lambda: {
            "userId": 1,
            "userEmail": "a@b.co",
            "clienteNombre": "Bench",
            "total": 19.99,
            "tipoPedido": "NACIONAL",
            "destino": "Lima",
            "productoId": 1,
            "cantidad": 1,
        },
    }


def post(url, bearer, route, body, key=None):
    headers = {"Authorization": f"Bearer {bearer}", "Content-Type": "application/json"}
    if key:
        headers["Idempotency-Key"] = key
    started = time.perf_counter()
    response = requests.post(
        url + route.split(" ")[1], data=json.dumps(body), headers=headers, timeout=30
    )
    assert response.status_code == 201, response.text
    return (time.perf_counter() - started) * 1000, response


def operations(meter) -> str:
    return ", ".join(f"{count} {name}" for name, count in sorted(meter.operations.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    for key, value in LOCAL_AWS_ENV.items():
        os.environ.setdefault(key, value)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    os.environ.setdefault("JWT_SECRET", new_key())  # none is built in: this run's own
    dynamodb = emulator().start()
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = dynamodb.url
    template.create_tables(boto3.client("dynamodb"))
    events = LocalLambda(
        {"OrderEventsFunction": lambda event, context: None}, get_logger("local-lambda")
    )
    events.server.start()
    os.environ["AWS_ENDPOINT_URL_LAMBDA"] = events.server.url
    bound = AppServer()  # the gateway is its own stock check's target
    os.environ["INVENTORY_SERVICE_URL"] = bound.url
    settings = AllSettings.from_env()
    server = bound.serve(ChaliceWsgi(create_gateway(settings)))
    bearer, url = local_token(settings.tokens), server.url
    print(
        "| request | DynamoDB operations (one request) | items read / written | "
        "median ms |\n|---|---|---|---|"
    )
    try:
        for route, body in bodies().items():
            post(url, bearer, "POST /api/inventario", bodies()["POST /api/inventario"]())
            rows = {}
            for label, send in (
                ("no key", lambda r=route, b=body: post(url, bearer, r, b())),
                (
                    "first, new key",
                    lambda r=route, b=body: post(
                        url, bearer, r, b(), key=f"k-{time.perf_counter_ns()}"
                    ),
                ),
            ):
                with metered() as meter:
                    send()
                times = [send()[0] for _ in range(args.repeat)]
                rows[label] = (meter, statistics.median(times))
            replayed_body = body()
            post(url, bearer, route, replayed_body, key="replayed")
            with metered() as meter:
                assert (
                    post(url, bearer, route, replayed_body, key="replayed")[1].headers[
                        "Idempotent-Replayed"
                    ]
                    == "true"
                )
            rows["replay"] = (
                meter,
                statistics.median(
                    post(url, bearer, route, replayed_body, key="replayed")[0]
                    for _ in range(args.repeat)
                ),
            )
            for label, (meter, millis) in rows.items():
                print(
                    f"| {route}, {label} | {operations(meter)} | "
                    f"{meter.items_read} / {meter.items_written} | {millis:.1f} |"
                )
    finally:
        server.stop()
        events.server.stop()
        dynamodb.stop()


if __name__ == "__main__":
    main()
