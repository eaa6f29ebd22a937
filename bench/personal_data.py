"""Rerunnable benchmark: a person with many orders, on the local stack: how long their data
takes to read and to export, and their erasure to be done (docs/personal-data.md).

Usage: `make bench-erasure` (or .venv/bin/python bench/personal_data.py [--orders N]
[--shipments S]). It starts the local stack on free ports (data in memory), registers a
person (an account in the stack's user pool) and writes N orders of theirs (final:
ENTREGADO or CANCELADO, in turn, each with its history) and S delivered shipments of
those orders straight into the stack's emulator, as the orders' and shipping's
repositories write them (placing 10,000 orders through the API would take the
benchmark's time), their userId claimed as an order claims it. Then it times, over HTTP:

1. GET /api/usuarios/{userId}/datos and .../datos/exportar, compressed (Accept:
   application/json, Accept-Encoding: gzip) and, for the data, not: the answer's time,
   its size on the wire and in JSON, against API Gateway's 29 s and Lambda's 6 MB;
2. the erasure: POST /api/usuarios/{userId}/cancelacion (an operator's), the time to its
   answer, then until the record says it is done (`completadaEn`), sign-in with the
   email is refused, and every order and shipment holds none of the person's fields;
   the promise is 5 minutes for 10,000 orders.
"""

import argparse
import gzip
import json
import time
import uuid
from decimal import Decimal

import boto3
import requests

from common.identity.user_ids import TABLE, UserIds
from common.orders.model import OrderModel
from common.orders.records import Order, Shipment
from common.orders.shipment_model import ShipmentModel
from common.platform import aws
from common.platform.history import Entry
from common.platform.settings import Cloud
from common.storage.tables import bind
from infra.local import LOCAL_AWS_ENV
from orders.repository import item_of as order_item
from shipping.repository import item_of as shipment_item
from tests.support.stack_process import StackProcess

PASSWORD = "A-long-Passphrase-2026"
DEADLINE_SECONDS = 300  # what the platform promises for 10,000 orders
JSON_GZIP = {"Accept": "application/json", "Accept-Encoding": "gzip"}


def moment(n: int) -> str:
    """A time of its own for item `n`, so the answers compress as real ones would."""
    day = f"2026-{1 + n % 11:02d}-{1 + n % 28:02d}"
    return f"{day}T{n % 24:02d}:{n % 60:02d}:{n * 7 % 60:02d}.{n * 7919 % 1000000:06d}"


def load(user_id: int, email: str, orders: int, shipments: int) -> None:
    """The person's orders and shipments, written as their repositories write them."""
    with OrderModel.batch_write() as batch:
        for n in range(1, orders + 1):
            at = moment(n)
            histories = {
                "ENTREGADO": [
                    Entry(s, at, "operator") for s in ("APROBADO", "EN_ENVIO", "ENTREGADO")
                ],
                "CANCELADO": [Entry("CANCELADO", at, "customer")],
            }
            status = "ENTREGADO" if n % 2 or n <= shipments else "CANCELADO"
            item = order_item(
                Order(
                    id=n,
                    user_id=user_id,
                    user_email=email,
                    cliente_nombre="Bench Person",
                    total=Decimal(n * 37 % 9973) / 100,
                    tipo_pedido="NACIONAL",
                    destino="Av. Arequipa 1234, Lima",
                    producto_id=1,
                    cantidad=3,
                    status=status,
                    observaciones=None,
                    creado_en=at,
                    creado_por="customer",
                )
            )
            item.historial = [_entry(e) for e in histories[status]]
            batch.save(item)
    with ShipmentModel.batch_write() as batch:
        for n in range(1, shipments + 1):
            at = moment(n)
            item = shipment_item(
                Shipment(
                    id=n,
                    pedido_id=n,
                    status="ENTREGADO",
                    tipo_envio="TERRESTRE",
                    transportista="Olva",
                    guia_despecho=f"TER-2026{1 + n % 11:02d}{1 + n % 28:02d}-{n:06d}",
                    ruta_descripcion="Ruta terrestre — Av. Arequipa 1234, Lima",
                    destino="Av. Arequipa 1234, Lima",
                    fecha_estimada_entrega=at,
                    creado_en=at,
                    owner_id=user_id,
                )
            )
            item.historial = [_entry(Entry("ENTREGADO", at, "operator"))]
            batch.save(item)


def _entry(entry: Entry):
    from common.storage.tables import history_entry

    return history_entry(entry)


def timed(method: str, url: str, **kw) -> tuple[float, requests.Response]:
    started = time.perf_counter()
    answer = requests.request(method, url, timeout=120, **kw)
    return time.perf_counter() - started, answer


def wire_size(answer: requests.Response) -> int:
    return int(answer.headers.get("Content-Length") or len(answer.content))


def read(stack: StackProcess, operator: dict, user_id: int) -> None:
    base = f"{stack.gateway}/api/usuarios/{user_id}"
    for name, path, headers in (
        ("data, gzip", "/datos", JSON_GZIP),
        ("export, gzip", "/datos/exportar", JSON_GZIP),
        ("data, identity", "/datos", {"Accept-Encoding": "identity"}),
        ("export, identity", "/datos/exportar", {"Accept-Encoding": "identity"}),
    ):
        seconds, answer = timed("GET", base + path, headers={**operator, **headers}, stream=True)
        raw = answer.raw.read(decode_content=False)
        wire = len(raw)
        text = gzip.decompress(raw) if answer.headers.get("Content-Encoding") == "gzip" else raw
        if answer.status_code == 200:
            data = json.loads(text)
            held = f"{len(data['pedidos'])} orders, {len(data['envios'])} shipments"
        else:
            held = f"{answer.status_code} {json.loads(text)['error']}"
        print(
            f"  {name:<17} {seconds:6.2f} s   {wire / 1e6:6.2f} MB on the wire, "
            f"{len(text) / 1e6:6.2f} MB of JSON   ({held})"
        )


def erase(stack: StackProcess, operator: dict, user_id: int, email: str) -> float:
    """The erasure's request, then the time until it is done (seconds since the request)."""
    started = time.perf_counter()
    answer = requests.post(
        f"{stack.gateway}/api/usuarios/{user_id}/cancelacion",
        headers=operator,
        json={"motivo": "benchmark"},
        timeout=120,
    )
    answered = time.perf_counter() - started
    assert answer.status_code == 200, answer.text
    print(f"  answered          {answered:6.2f} s   {answer.json()}")
    signed_out = done = None
    while done is None or signed_out is None:
        now = time.perf_counter() - started
        assert now < 2 * DEADLINE_SECONDS, "the erasure was not done"
        if signed_out is None:
            login = requests.post(
                f"{stack.gateway}/api/auth/login",
                json={"email": email, "password": PASSWORD},
                timeout=30,
            )
            if login.status_code == 401:
                signed_out = now
        record = requests.get(
            f"{stack.gateway}/api/usuarios/solicitudes?limit=5", headers=operator, timeout=30
        ).json()
        if done is None and any(r["completadaEn"] for r in record if r["tipo"] == "SUPRESION"):
            done = time.perf_counter() - started
        time.sleep(1)
    print(f"  sign-in refused   {signed_out:6.2f} s after the request")
    print(f"  erasure done      {done:6.2f} s after the request (promised: {DEADLINE_SECONDS} s)")
    return done


def check_stripped(stack: StackProcess, operator: dict, user_id: int) -> None:
    answer = requests.get(
        f"{stack.gateway}/api/usuarios/{user_id}/datos",
        headers={**operator, **JSON_GZIP},
        timeout=120,
    ).json()
    assert answer["cuenta"] is None
    assert all(o["userEmail"] is o["destino"] is None for o in answer["pedidos"])
    assert all(s["destino"] is s["rutaDescripcion"] is None for s in answer["envios"])
    print(
        f"  checked: {len(answer['pedidos'])} orders and {len(answer['envios'])} shipments "
        "hold none of the person's fields; the account is gone"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--orders", type=int, default=10_000)
    parser.add_argument("--shipments", type=int, default=5_000)
    args = parser.parse_args()
    stack = StackProcess().start()
    try:
        operator = {"Authorization": f"Bearer {stack.token}"}
        email = f"bench-{uuid.uuid4().hex[:8]}@example.com"
        made = requests.post(
            f"{stack.gateway}/api/auth/register",
            json={"email": email, "password": PASSWORD, "nombre": "Bench Person"},
            timeout=30,
        )
        assert made.status_code == 201, made.text
        user_id = made.json()["userId"]
        client = boto3.client(
            "dynamodb",
            endpoint_url=stack.dynamodb,
            region_name=LOCAL_AWS_ENV["AWS_DEFAULT_REGION"],
            aws_access_key_id=LOCAL_AWS_ENV["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=LOCAL_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
        )
        import os

        os.environ.update({**LOCAL_AWS_ENV, "AWS_ENDPOINT_URL_DYNAMODB": stack.dynamodb})
        cloud = Cloud.from_env()
        bind(cloud, OrderModel, ShipmentModel)
        started = time.perf_counter()
        with aws.acting_as("OrdersFunction"):
            load(user_id, email, args.orders, args.shipments)
        UserIds(lambda: client, cloud.table_name(TABLE)).used(user_id)
        print(
            f"A person (userId {user_id}) with {args.orders} orders and {args.shipments} "
            f"shipments, written in {time.perf_counter() - started:.1f} s."
        )
        print("Reading their data (an operator's requests):")
        read(stack, operator, user_id)
        print("Erasing it:")
        erase(stack, operator, user_id, email)
        check_stripped(stack, operator, user_id)
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
