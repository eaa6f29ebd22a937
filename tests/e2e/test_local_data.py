"""What a developer's data goes through with `make run` (LOCAL_DATA_DIR): a stop and a
start, a crash, a file that cannot be used, `make reset`."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
import requests

from infra.local.persistence import FORMAT, SNAPSHOT_FILE
from infra.local.settings import DEFAULT_DATA_DIR
from tests.support.dashboard import comparable, figures, settled
from tests.support.stack_client import token
from tests.support.stack_process import ROOT, StackClient, StackProcess
from tests.support.webhook_receiver import Receiver, verified

# What a crash may cost, at most: the writes answered in the last seconds before it.
CRASH_WINDOW_SECONDS = 5


def product(sku: str) -> dict:
    return {
        "sku": sku,
        "nombre": "Caja",
        "precioUnitario": 19.99,
        "stockActual": 10,
        "umbralMinimo": 2,
    }


def started(data_dir) -> tuple[StackProcess, StackClient]:
    stack = StackProcess({"LOCAL_DATA_DIR": str(data_dir)}).start()
    return stack, StackClient(stack, token())


ORDER = {
    "userId": 1,
    "userEmail": "ana@example.com",
    "clienteNombre": "Ana",
    "total": 19.99,
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "cantidad": 1,
}


def delivered(receiver: Receiver, ident: int, timeout: float = 20.0):
    """The delivery of an event of the order or product `ident`, once it came."""
    deadline = time.monotonic() + timeout
    while True:
        found = [d for d in receiver.received if d.event["data"]["id"] == ident]
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"no event of {ident} was delivered"
        time.sleep(0.2)


def dashboard_agrees(http: StackClient) -> dict:
    """The dashboard (docs/api.md#dashboard) equals what the lists show, once its streams
    have delivered (waited for, as tests.support.dashboard says)."""
    shown, wanted, took = settled(lambda path, params: http.gateway("GET", path, params=params))
    assert comparable(figures(shown)) == comparable(wanted), f"apart after {took:.1f} s"
    return shown


def test_data_written_before_a_clean_stop_is_there_after_the_next_start(tmp_path):
    receiver = Receiver()
    stack, http = started(tmp_path)
    try:
        hook = http.gateway(
            "POST", "/api/webhooks", json={"url": receiver.url, "eventos": ["pedido.creado"]}
        ).json()
        product_id = http.gateway("POST", "/api/inventario", json=product("KEEP-1")).json()["id"]
        order = http.gateway(
            "POST",
            "/api/pedidos",
            json={
                "userId": 1,
                "userEmail": "ana@example.com",
                "clienteNombre": "Ana",
                "total": 19.99,
                "tipoPedido": "NACIONAL",
                "destino": "Lima",
                "productoId": product_id,
                "cantidad": 1,
            },
        ).json()
        shipment = http.gateway(
            "POST",
            "/api/envios",
            json={
                "pedidoId": order["id"],
                "tipoEnvio": "EXPRESS",
                "transportista": "DHL",
                "destino": "Lima",
            },
        ).json()
        assert "Data:          " + str(tmp_path) in stack.output()
        # The last change right before the stop: its stream record may not have reached
        # the dashboard's figures when the stack stops (the stream is in memory).
        moved = http.gateway(
            "PATCH", f"/api/pedidos/{order['id']}/status", params={"status": "APROBADO"}
        )
        assert moved.status_code == 200
        order = moved.json()
    finally:
        stack.proc.send_signal(signal.SIGTERM)
        assert stack.proc.wait(timeout=120) == 0  # a hang detector: a stop takes seconds

    stack, http = started(tmp_path)
    try:
        # What was created, by kind: not the stored items of every table (the sku's
        # claim, the counters, the idempotency records are the platform's own).
        assert stack.find(r"^Data:\s+\S+  \(restored: 1 product, 1 order, 1 shipment;")
        assert http.gateway("GET", f"/api/inventario/{product_id}").json()["sku"] == "KEEP-1"
        assert http.gateway("GET", f"/api/pedidos/{order['id']}").json() == order
        assert http.gateway("GET", f"/api/envios/{shipment['id']}").json() == shipment
        assert dashboard_agrees(http)["pedidos"]["porEstado"]["APROBADO"] == 1
        # The sku is still taken, and the counters go on from where they were.
        assert (
            http.gateway("POST", "/api/inventario", json=product("KEEP-1")).json()["error"]
            == "DUPLICATE_SKU"
        )
        assert (
            http.gateway("POST", "/api/inventario", json=product("KEEP-2")).json()["id"]
            > product_id
        )
        # The webhook's secret, stored encrypted with the emulator's KMS key, still signs:
        # the key is the same across the restart.
        placed = http.gateway("POST", "/api/pedidos", json={**ORDER, "productoId": product_id})
        assert verified(hook["secreto"], delivered(receiver, placed.json()["id"]))
    finally:
        stack.stop()
        receiver.stop()
    assert "whsec_" not in (tmp_path / SNAPSHOT_FILE).read_text()


def test_data_saved_before_write_sharding_is_listed_after_the_next_start(tmp_path):
    # A product in alert and an order whose event is pending, as the stack saved them
    # before their index keys were sharded (infra/shard_backfill.py); and a webhook
    # endpoint as it was saved before secrets were encrypted (infra/webhook_secrets.py).
    receiver, secret = Receiver(), "whsec_" + "D" * 44
    (tmp_path / SNAPSHOT_FILE).write_text(
        json.dumps(
            {
                "format": FORMAT,
                "tables": {
                    "ProductsTable": [
                        {
                            "id": {"N": "1"},
                            "sku": {"S": "OLD-1"},
                            "nombre": {"S": "Caja"},
                            "precioUnitario": {"N": "2"},
                            "stockActual": {"N": "2"},
                            "umbralMinimo": {"N": "5"},
                            "enAlerta": {"S": "ALERTA"},
                        }
                    ],
                    "OrdersTable": [
                        {
                            "id": {"N": "1"},
                            "userId": {"N": "1"},
                            "userEmail": {"S": "a@b.co"},
                            "clienteNombre": {"S": "Ana"},
                            "total": {"N": "2"},
                            "status": {"S": "PENDIENTE"},
                            "tipoPedido": {"S": "NACIONAL"},
                            "destino": {"S": "Lima"},
                            "productoId": {"N": "1"},
                            "cantidad": {"N": "1"},
                            "creadoEn": {"S": "2026-01-01T00:00:00"},
                            "eventoPendiente": {"S": "PENDING"},
                        }
                    ],
                    "WebhooksTable": [
                        {
                            "id": {"N": "1"},
                            "url": {"S": receiver.url},
                            "eventos": {"L": [{"S": "inventario.stock_bajo"}]},
                            "activo": {"BOOL": True},
                            "activoMarca": {"S": "ACTIVO"},
                            "creadoEn": {"S": "2026-01-01T00:00:00.000000"},
                            "secreto": {"S": secret},
                            "shard": {"N": "1"},
                        }
                    ],
                },
            }
        )
    )
    stack, http = started(tmp_path)
    try:
        # make run's banner names what its migrations changed.
        said = next(line for line in stack.output().splitlines() if line.startswith("Migra"))
        assert "1 webhook secrets encrypted" in said and "stock into warehouses" in said, said
        assert [p["id"] for p in http.gateway("GET", "/api/inventario").json()] == [1]
        assert [p["id"] for p in http.gateway("GET", "/api/inventario/alertas").json()] == [1]
        assert [
            o["id"]
            for o in http.gateway("GET", "/api/pedidos", params={"status": "PENDIENTE"}).json()
        ] == [1]
        # Its userId was claimed at start (infra/user_id_backfill.py): the first person
        # who registers, whom the empty counter would have given 1, owns nothing.
        sign_up = {"email": "first@example.com", "password": "A-long-Passphrase-2026"}
        made = requests.post(stack.gateway + "/api/auth/register", json=sign_up, timeout=30)
        assert made.status_code == 201 and made.json()["userId"] != 1, made.text
        theirs = StackClient(
            stack, requests.post(stack.gateway + "/api/auth/login", json=sign_up, timeout=30).text
        )
        assert theirs.gateway("GET", "/api/pedidos").json() == []
        # The endpoint's secret, encrypted at the start, signs as it did (the product
        # back above its threshold, then below: its stock alert).
        for stock in (10, 1):
            moved = {"sku": "OLD-1", "nombre": "Caja", "precioUnitario": 2, "umbralMinimo": 5}
            answer = http.gateway("PUT", "/api/inventario/1", json={**moved, "stockActual": stock})
            assert answer.status_code == 200, answer.text
        assert verified(secret, delivered(receiver, 1))
        # No stream ever told the dashboard of them: counted at the start.
        shown = dashboard_agrees(http)
        assert (shown["productos"]["enAlerta"], shown["pedidos"]["total"]) == (1, 1)
    finally:
        stack.stop()
        receiver.stop()
    assert secret not in (tmp_path / SNAPSHOT_FILE).read_text()


def test_a_crash_loses_no_write_answered_more_than_seconds_before_and_no_id_comes_twice(tmp_path):
    stack, http = started(tmp_path)
    answered: list[tuple[float, int]] = []
    stop = threading.Event()

    def write(writer: int):
        session = requests.Session()
        for n in range(100_000):
            if stop.is_set():
                return
            try:
                response = session.post(
                    f"{stack.gateway}/api/inventario",
                    json=product(f"CRASH-{writer}-{n}"),
                    timeout=5,
                    headers={"Authorization": f"Bearer {http.bearer}"},
                )
            except requests.Timeout:
                continue  # a loaded machine's slow answer, not the crash: write on
            except requests.RequestException:
                return  # the stack is gone
            if response.status_code == 201:
                answered.append((time.monotonic(), response.json()["id"]))

    writers = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for writer in writers:
        writer.start()
    # Enough answered writes to tell anything (a loaded machine may take seconds for the
    # first ones), then the window: the kill lands while writes are still coming.
    deadline = time.monotonic() + 90
    while len(answered) < 30 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(CRASH_WINDOW_SECONDS + 1)
    stack.proc.kill()
    killed_at = time.monotonic()
    stack.proc.wait()
    stop.set()
    for writer in writers:
        writer.join()

    old = {i for at, i in answered if at < killed_at - CRASH_WINDOW_SECONDS}
    assert len(old) > 20, "the burst wrote too little to tell anything"
    stack, http = started(tmp_path)
    try:
        kept = [item["id"] for item in http.gateway("GET", "/api/inventario").json()]
        assert old <= set(kept)
        # Whatever the crash cut between the products and their figures: put right.
        dashboard_agrees(http)
        newest = max(i for _, i in answered)
        assert (
            http.gateway("POST", "/api/inventario", json=product("AFTER-CRASH")).json()["id"]
            > newest
        )
    finally:
        stack.stop()


@pytest.mark.parametrize("damage", ["truncated", "a directory"])
def test_a_data_file_that_cannot_be_used_stops_the_start_naming_it_and_is_left_as_it_is(
    tmp_path, damage
):
    data_file = tmp_path / "dynamodb.json"
    if damage == "truncated":
        data_file.write_text('{"format": "logistics-local-dynamodb/1", "tables": {"Prod')
    else:
        data_file.mkdir()
    before = data_file.read_bytes() if data_file.is_file() else None
    env = {
        **os.environ,
        "LOCAL_DATA_DIR": str(tmp_path),
        "GATEWAY_PORT": "0",
        "NOTIFICATION_PORT": "0",
        "DYNAMODB_PORT": "0",
        "LAMBDA_PORT": "0",
        "RELOAD": "0",
    }
    result = subprocess.run(
        [sys.executable, "-m", "infra.dev"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "Ready." not in result.stdout
    assert f"Local data: {data_file}" in result.stderr and "make reset" in result.stderr
    assert (data_file.read_bytes() if before is not None else None) == before
    assert data_file.exists()


def test_make_reset_empties_the_data_and_refuses_while_a_stack_uses_it(tmp_path):
    stack, http = started(tmp_path)
    env = {**os.environ, "LOCAL_DATA_DIR": str(tmp_path)}
    try:
        http.gateway("POST", "/api/inventario", json=product("RESET-1"))
        refused = subprocess.run(
            ["make", "-s", "reset"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )
        assert refused.returncode != 0 and "in use by another local stack" in refused.stderr
    finally:
        stack.stop()
    assert json.loads((tmp_path / "dynamodb.json").read_text())["tables"]["ProductsTable"]

    reset = subprocess.run(
        ["make", "-s", "reset"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert reset.returncode == 0, reset.stderr
    assert f"Emptied {tmp_path}" in reset.stdout
    assert not list(tmp_path.glob("*.json"))
    stack, http = started(tmp_path)
    try:
        assert http.gateway("GET", "/api/inventario").json() == []
    finally:
        stack.stop()


def test_an_empty_LOCAL_DATA_DIR_keeps_everything_in_memory(stack):
    # The session's stack is one (tests/support/stack_process.py: LOCAL_DATA_DIR="").
    assert stack.env["LOCAL_DATA_DIR"] == ""
    assert "Data:          in memory only" in stack.output()
    assert DEFAULT_DATA_DIR not in stack.output()


def _make(target: str, data_dir, *variables: str) -> subprocess.CompletedProcess:
    """`make -s <target>` as a developer runs it beside a stack: told only where the data
    is, with the stack's ports chosen by the kernel (0, as here) and its own key."""
    env = {key: value for key, value in os.environ.items() if key != "JWT_SECRET"}
    env.update({"LOCAL_DATA_DIR": str(data_dir), "DYNAMODB_PORT": "0", "GATEWAY_PORT": "0"})
    return subprocess.run(
        ["make", "-s", target, *variables],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_make_user_and_make_token_find_the_running_stack_by_its_data_directory(tmp_path):
    """Whatever ports the stack chose: the stack says where it runs in its data directory
    while it runs (infra/local/running.py), and the tools read it there."""
    stack = StackProcess({"LOCAL_DATA_DIR": str(tmp_path), "JWT_SECRET": ""}).start()
    try:
        email = "ops.anywhere@example.com"
        made = _make(
            "user", tmp_path, f"EMAIL={email}", "ROLE=operator", "PASSWORD=A-long-Pass-2026"
        )
        assert made.returncode == 0, made.stderr
        assert made.stdout.startswith(f"Created {email} in the local user pool (operator)")
        printed = _make("token", tmp_path)
        assert printed.returncode == 0, printed.stderr
        assert StackClient(stack, printed.stdout.strip()).gateway("GET", "/api/inventario").ok
        signed_in = requests.post(
            stack.gateway + "/api/auth/login",
            json={"email": email, "password": "A-long-Pass-2026"},
            timeout=30,
        )
        assert signed_in.status_code == 200
    finally:
        stack.stop()
    # Stopped: the tools say so, rather than reach for another stack's ports.
    gone = _make("user", tmp_path, "EMAIL=late@example.com", "ROLE=operator")
    assert gone.returncode != 0 and "make run" in gone.stderr


def test_what_an_erasure_removes_from_the_tables_is_gone_from_the_data_on_disk(tmp_path):
    """docs/personal-data.md: the data directory is a copy too. Once a person is erased,
    the next snapshot of the tables, and the saved users of the pool, hold nothing of
    them (the snapshot is rewritten whole, never appended to)."""
    stack, http = started(tmp_path)
    email, name, street = "erase.me@example.com", "Erasable Person", "Jirón Erasable 77"
    try:
        made = requests.post(
            stack.gateway + "/api/auth/register",
            json={"email": email, "password": "A-long-Passphrase-2026", "nombre": name},
            timeout=30,
        )
        assert made.status_code == 201, made.text
        user_id = made.json()["userId"]
        product_id = http.gateway("POST", "/api/inventario", json=product("ERASE-1")).json()["id"]
        order = http.gateway(
            "POST",
            "/api/pedidos",
            json={
                "userId": user_id,
                "userEmail": email,
                "clienteNombre": name,
                "total": 5,
                "tipoPedido": "NACIONAL",
                "destino": street,
                "productoId": product_id,
                "cantidad": 1,
            },
        ).json()
        http.gateway("PATCH", f"/api/pedidos/{order['id']}/status?status=CANCELADO")
        saved = [tmp_path / SNAPSHOT_FILE, tmp_path / "users.json"]
        deadline = time.monotonic() + 10
        while not all(
            street in p.read_text() or email in p.read_text() for p in saved if p.exists()
        ):
            assert time.monotonic() < deadline, "the data was never saved"
            time.sleep(0.2)
        erased = http.gateway(
            "POST", f"/api/usuarios/{user_id}/cancelacion", json={"motivo": "ticket 17"}
        )
        assert erased.status_code == 200, erased.text
        deadline = time.monotonic() + 60
        while any(value in p.read_text() for p in saved for value in (email, name, street)):
            assert time.monotonic() < deadline, "the data on disk still holds the person's"
            time.sleep(0.5)
        kept = json.loads((tmp_path / SNAPSHOT_FILE).read_text())
        assert str(order["id"]) in json.dumps(kept)  # the order itself stays
    finally:
        stack.stop()
