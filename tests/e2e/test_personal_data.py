"""Black-box: a person's rights over their data on the real local stack (docs/api.md#
personal-data): what a person and an operator see from outside, over HTTP, with the
stack's own user pool, erasure queue and erasure function. Each test has its own
people, emails and product."""

import time
import uuid

import requests

from tests.support.addresses import client_at, new_address

PASSWORD = "A-long-Passphrase-2026"
ORDER = {"total": 59.97, "tipoPedido": "NACIONAL", "destino": "Av. Arequipa 1234", "cantidad": 1}
# What the platform promises after an erasure's answer (docs/personal-data.md).
WITHIN_SECONDS = 60


def poll(check, timeout: float = WITHIN_SECONDS, pause: float = 0.5):
    """check()'s first truthy answer within `timeout`; its last answer failing that."""
    deadline = time.monotonic() + timeout
    while True:
        answer = check()
        if answer or time.monotonic() > deadline:
            return answer
        time.sleep(pause)


class Person:
    """A customer who registered themselves, signed in."""

    def __init__(self, http):
        self.http = http
        self.email = f"rights-{uuid.uuid4().hex[:10]}@example.com"
        # A client address of its own: registrations are limited per address.
        self.client = client_at(new_address())
        made = self.call("POST", "/api/auth/register", None, json=self.credentials())
        assert made.status_code == 201, made.text
        self.user_id = made.json()["userId"]
        self.token = self.sign_in()
        assert self.token is not None

    def credentials(self) -> dict:
        return {"email": self.email, "password": PASSWORD, "nombre": "Ana Torres"}

    def call(self, method: str, path: str, token: str | None, **kw):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        url = self.http.stack.gateway + path
        return self.client.request(method, url, headers=headers, timeout=30, **kw)

    def sign_in(self) -> str | None:
        answer = self.call("POST", "/api/auth/login", None, json=self.credentials())
        return answer.text if answer.status_code == 200 else None

    def mine(self, method: str, path: str, **kw):
        return self.call(method, path, self.token, **kw)


def a_product(http) -> int:
    made = http.gateway(
        "POST",
        "/api/inventario",
        json={
            "sku": f"RIGHTS-{uuid.uuid4().hex[:8]}",
            "nombre": "Caja",
            "precioUnitario": 19.99,
            "stockActual": 100,
            "umbralMinimo": 0,
        },
    )
    assert made.status_code == 201, made.text
    return made.json()["id"]


def an_order(http, user_id: int, email: str, product: int, *moves: str) -> dict:
    placed = http.gateway(
        "POST",
        "/api/pedidos",
        json={
            **ORDER,
            "userId": user_id,
            "userEmail": email,
            "clienteNombre": "Ana Torres",
            "productoId": product,
        },
    )
    assert placed.status_code == 201, placed.text
    order = placed.json()
    for status in moves:
        moved = http.gateway("PATCH", f"/api/pedidos/{order['id']}/status?status={status}")
        assert moved.status_code == 200, moved.text
        order = moved.json()
    return order


def erased_in_time(http, user_id: int) -> dict:
    """The person's data as an operator reads it once the erasure is done."""
    return poll(
        lambda: (
            (data := http.gateway("GET", f"/api/usuarios/{user_id}/datos").json())
            and all(order["userEmail"] is None for order in data["pedidos"])
            and data["cuenta"] is None
            and data
        )
    )


def test_a_person_sees_takes_corrects_and_erases_their_data(http):
    ana = Person(http)
    product = a_product(http)
    delivered = an_order(http, ana.user_id, ana.email, product, "APROBADO", "EN_ENVIO", "ENTREGADO")
    shipment = http.gateway(
        "POST",
        "/api/envios",
        json={
            "pedidoId": delivered["id"],
            "tipoEnvio": "TERRESTRE",
            "transportista": "Olva",
            "destino": "Av. Arequipa 1234",
        },
    ).json()
    http.gateway("PATCH", f"/api/envios/{shipment['id']}/status?status=ENTREGADO")
    pending = an_order(http, ana.user_id, ana.email, product)

    data = ana.mine("GET", "/api/usuarios/me/datos").json()
    assert (data["cuenta"]["email"], data["cuenta"]["userId"]) == (ana.email, ana.user_id)
    assert [o["id"] for o in data["pedidos"]] == [delivered["id"], pending["id"]]
    assert [s["id"] for s in data["envios"]] == [shipment["id"]]
    exported = ana.mine("GET", "/api/usuarios/me/datos/exportar")
    assert exported.headers["Content-Disposition"] == (
        f'attachment; filename="datos-{ana.user_id}.json"'
    )
    assert exported.json()["pedidos"][0]["historial"][-1]["status"] == "ENTREGADO"
    assert (
        ana.mine("PUT", "/api/usuarios/me", json={"nombre": "Ana T."}).json()["nombre"] == "Ana T."
    )

    refused = ana.mine(
        "POST",
        "/api/usuarios/me/cancelacion",
        json={"password": PASSWORD, "confirmacion": "ELIMINAR_MI_CUENTA"},
    )
    assert (refused.status_code, refused.json()["error"]) == (409, "OPEN_ORDERS")
    assert pending["id"] in [detail["id"] for detail in refused.json()["details"]]
    ana.mine("PATCH", f"/api/pedidos/{pending['id']}/status?status=CANCELADO")
    old_token = ana.token
    erased = ana.mine(
        "POST",
        "/api/usuarios/me/cancelacion",
        json={"password": PASSWORD, "confirmacion": "ELIMINAR_MI_CUENTA"},
    )
    assert (erased.status_code, erased.json()) == (
        200,
        {"userId": ana.user_id, "estado": "CANCELADA"},
    )

    assert poll(lambda: ana.sign_in() is None)
    assert poll(lambda: ana.call("GET", "/api/pedidos", old_token).status_code == 401)
    data = erased_in_time(http, ana.user_id)
    assert data, "the erasure was not done within a minute"
    kept = {o["id"]: o for o in data["pedidos"]}[delivered["id"]]
    assert {k: kept[k] for k in ("id", "userId", "total", "status", "creadoEn")} == {
        k: delivered[k] for k in ("id", "userId", "total", "status", "creadoEn")
    }
    assert kept["clienteNombre"] is kept["destino"] is None
    (shipped,) = data["envios"]
    assert (shipped["guiaDespecho"], shipped["destino"], shipped["rutaDescripcion"]) == (
        shipment["guiaDespecho"],
        None,
        None,
    )
    # The email registers again: a new person, a new userId, owning nothing.
    again = poll(
        lambda: (
            (
                made := ana.call("POST", "/api/auth/register", None, json=ana.credentials())
            ).status_code
            == 201
            and made
        )
    )
    assert again and again.json()["userId"] != ana.user_id
    ana.token = ana.sign_in()
    assert ana.mine("GET", "/api/usuarios/me/datos").json()["pedidos"] == []
    assert ana.mine("GET", "/api/pedidos").json() == []


def test_an_operator_erases_someone_without_an_account_on_a_request_by_mail(http):
    user_id = 500_000 + uuid.uuid4().int % 99_999
    email = f"nobody-{uuid.uuid4().hex[:8]}@example.com"
    order = an_order(http, user_id, email, a_product(http), "CANCELADO")
    before = http.gateway("GET", f"/api/usuarios/{user_id}/datos").json()
    assert before == {"cuenta": None, "pedidos": [order], "envios": [], "devoluciones": []}
    erased = http.gateway(
        "POST", f"/api/usuarios/{user_id}/cancelacion", json={"motivo": "correo del 2 de dic."}
    )
    assert erased.status_code == 200, erased.text
    data = erased_in_time(http, user_id)
    assert data["pedidos"][0]["userEmail"] is None
    twice = http.gateway("POST", f"/api/usuarios/{user_id}/cancelacion", json={"motivo": "otra"})
    assert (twice.status_code, twice.json()["estado"]) == (200, "CANCELADA")
    record = http.gateway("GET", "/api/usuarios/solicitudes?limit=50").json()
    mine = [r for r in record if r["userId"] == user_id]
    # Newest first, by id: ids come a block per environment, so requests a moment apart
    # from two environments may be listed the other way round (docs/api.md#conventions).
    assert [r["id"] for r in mine] == sorted((r["id"] for r in mine), reverse=True)
    assert sorted(
        (r["tipo"], r["origen"], r["resultado"]) for r in mine if r["tipo"] != "ACCESO"
    ) == [
        ("SUPRESION", "operator", 200),
        ("SUPRESION", "operator", 200),
    ]
    assert email not in str(record)


def test_no_token_is_401_and_a_customer_asking_about_someone_else_is_403(http):
    assert (
        requests.get(http.stack.gateway + "/api/usuarios/me/datos", timeout=10).status_code == 401
    )
    ana = Person(http)
    assert ana.mine("GET", f"/api/usuarios/{ana.user_id + 1}/datos").status_code == 403
    assert ana.mine("GET", "/api/usuarios/solicitudes").status_code == 403
