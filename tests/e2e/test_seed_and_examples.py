"""A first hour without typing JSON: `make seed` loads the demo data into a running stack
through its API (a second run adds nothing), and the README's curl examples post the
request bodies of examples/, each answered as the README says. Each against a stack of
its own, as a new user's is: empty."""

import json
import os
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import requests

from tests.support.stack_process import ROOT, StackProcess

EXAMPLES = ROOT / "examples"
DEMO = json.loads((EXAMPLES / "demo.json").read_text(encoding="utf-8"))


@pytest.fixture
def empty_stack():
    stack = StackProcess().start()
    yield stack
    stack.stop()


def make_seed(stack: StackProcess) -> list[str]:
    result = subprocess.run(
        ["make", "-s", "seed"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **os.environ,
            "GATEWAY_URL": stack.gateway,
            "DYNAMODB_PORT": stack.dynamodb.rsplit(":", 1)[1],
        },
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def every(stack: StackProcess, path: str) -> list[dict]:
    answer = requests.get(
        stack.gateway + path,
        params={"limit": 1000},
        timeout=30,
        headers={"Authorization": f"Bearer {stack.token}"},
    )
    assert answer.status_code == 200 and "X-Next-Token" not in answer.headers
    return answer.json()


def test_make_seed_loads_the_demo_through_the_api_and_a_second_run_adds_nothing(empty_stack):
    first = make_seed(empty_stack)
    assert first[0] == (
        f"Seeded {empty_stack.gateway}: created 7 products, 6 orders, "
        "3 shipments; already there: 0 products, 0 orders, 0 shipments."
    )
    products = every(empty_stack, "/api/inventario")
    assert sorted(p["sku"] for p in products) == sorted(p["sku"] for p in DEMO["products"])
    assert len({p["bodega"] for p in products}) == 3
    alerts = every(empty_stack, "/api/inventario/alertas")
    assert 0 < len(alerts) < len(products)
    assert all(p["stockActual"] < p["umbralMinimo"] for p in alerts)
    orders = every(empty_stack, "/api/pedidos")
    assert {o["status"] for o in orders} == {
        "PENDIENTE",
        "APROBADO",
        "EN_ENVIO",
        "ENTREGADO",
        "CANCELADO",
    }
    shipments = every(empty_stack, "/api/envios")
    assert {s["tipoEnvio"] for s in shipments} == {"TERRESTRE", "EXPRESS"}
    assert re.fullmatch(
        r"Orders: +6 \(APROBADO 2, CANCELADO 1, ENTREGADO 1, EN_ENVIO 1, "
        r"PENDIENTE 1\)",
        first[2],
    )

    users = first.index(next(line for line in first if line.startswith("Users:")))
    assert first[users].startswith("Users:         created 3, already there 0; sign in at ")
    assert [line.split()[:4] for line in first[users + 1 :]] == [
        ["operator", "ops@example.com", "password", "Demo-Operator-2026"],
        ["customer", "ana.torres@example.com", "password", "Demo-Customer-2026"],
        ["customer", "luis.quispe@example.com", "password", "Demo-Customer-2026"],
    ]
    # Each customer signs in and sees the demo orders that are theirs.
    for line in first[users + 2 :]:
        _, email, _, password, *_ = line.split()
        token = requests.post(
            empty_stack.gateway + "/api/auth/login",
            json={"email": email, "password": password},
            timeout=30,
        ).text
        theirs = requests.get(
            empty_stack.gateway + "/api/pedidos",
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        ).json()
        assert [order["userEmail"] for order in theirs] == [email]

    again = make_seed(empty_stack)
    assert again[0] == (
        f"Seeded {empty_stack.gateway}: created 0 products, 0 orders, "
        "0 shipments; already there: 7 products, 6 orders, 3 shipments."
    )
    assert again[1:users] == first[1:users]
    assert again[users].startswith("Users:         created 0, already there 3; ")
    assert again[users + 1 :] == first[users + 1 :]
    assert len(every(empty_stack, "/api/pedidos")) == 6
    assert len(every(empty_stack, "/api/envios")) == 3
    # People who register after the seed get userIds none of its orders carry: each owns
    # nothing (the demo's userIds were claimed by its orders: docs/identity.md#userids).
    demo_ids = {order["userId"] for order in DEMO["orders"]}
    for n in range(len(demo_ids)):
        email = f"after-seed-{n}@example.com"
        account = requests.post(
            empty_stack.gateway + "/api/auth/register",
            json={"email": email, "password": "A-long-Passphrase-2026"},
            timeout=30,
        ).json()
        assert account["userId"] not in demo_ids
        token = requests.post(
            empty_stack.gateway + "/api/auth/login",
            json={"email": email, "password": "A-long-Passphrase-2026"},
            timeout=30,
        ).text
        mine = requests.get(
            empty_stack.gateway + "/api/pedidos",
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )
        assert mine.json() == [], (account, mine.json())


def test_make_seed_says_so_when_no_stack_answers(tmp_path):
    result = subprocess.run(
        ["make", "-s", "seed"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GATEWAY_URL": "http://127.0.0.1:9"},
    )
    assert result.returncode != 0
    assert "Is the local stack running there" in result.stderr


def readme_examples() -> list[tuple[str, str, Path]]:
    """Each README curl line that posts a file of examples/: (port, path, file)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return [
        (port, path, ROOT / file)
        for port, path, file in re.findall(
            r"^curl .*localhost:(\d+)(/\S+) -d @(examples/\S+\.json)", readme, re.MULTILINE
        )
    ]


def test_every_example_body_is_used_by_the_readme_or_the_seed():
    used = {file.name for _, _, file in readme_examples()} | {"demo.json"}
    assert used == {path.name for path in EXAMPLES.iterdir()}


def test_the_readmes_examples_are_answered_as_it_says_on_a_new_stack(empty_stack):
    examples = readme_examples()
    assert [path for _, path, _ in examples] == [
        "/api/inventario",
        "/api/pedidos",
        "/api/envios",
        "/notificaciones",
    ]
    base = {"8000": empty_stack.gateway, "8001": empty_stack.notifications}
    answers = []
    for port, path, file in examples:
        headers = {"Authorization": f"Bearer {empty_stack.token}"} if port == "8000" else {}
        # What curl -d sends: the file's bytes, a form Content-Type, POST.
        answers.append(
            requests.post(
                base[port] + path,
                data=file.read_bytes(),
                timeout=30,
                headers={**headers, "Content-Type": "application/x-www-form-urlencoded"},
            )
        )
    product, order, shipment, notification = answers
    assert (product.status_code, product.json()["id"]) == (201, 1)
    assert (order.status_code, order.json()["productoId"]) == (201, 1)
    assert (shipment.status_code, shipment.json()["pedidoId"]) == (201, order.json()["id"])
    assert (notification.status_code, notification.text) == (200, "Notificación procesada")
    assert Counter(a.status_code for a in answers) == {201: 3, 200: 1}
