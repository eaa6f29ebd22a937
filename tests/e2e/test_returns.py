"""Returns (docs/api.md#returns) from outside: the real local stack over HTTP, where the
orders function invokes the inventory function to put a reception's units back, as on
AWS. A customer asks, an operator approves and receives, the units are back in their
warehouse exactly once whatever the retries, and the dashboard and the webhooks follow."""

from concurrent.futures import ThreadPoolExecutor

from tests.support import samples
from tests.support.samples import PRODUCT
from tests.support.stack_client import token
from tests.support.stack_process import StackClient
from tests.support.tokens import unregistered_user_id


def delivered(http, sku: str, units: int, user_id: int) -> tuple[dict, dict]:
    made = {**PRODUCT, "sku": sku, "stockActual": 10, "umbralMinimo": 0}
    product = http.gateway("POST", "/api/inventario", json=made).json()
    sent = {
        **samples.ORDER,
        "userId": user_id,
        "userEmail": f"u{user_id}@example.com",
        "productoId": product["id"],
        "cantidad": units,
    }
    placed = http.gateway("POST", "/api/pedidos", json=sent)
    assert placed.status_code == 201, placed.text
    order = placed.json()
    for status in ("APROBADO", "EN_ENVIO", "ENTREGADO"):
        moved = http.gateway("PATCH", f"/api/pedidos/{order['id']}/status?status={status}")
        assert moved.status_code == 200, moved.text
    return product, moved.json()


def test_a_customers_return_is_approved_received_and_restocked_once(http, stack):
    user_id = unregistered_user_id()
    product, order = delivered(http, "E2E-RET-1", 4, user_id)
    customer = StackClient(stack, token("ROLE=customer", f"USER_ID={user_id}"))
    asked = customer.gateway(
        "POST",
        f"/api/pedidos/{order['id']}/devoluciones",
        json={"lineas": [{"linea": 1, "cantidad": 3}], "motivo": "DANADO", "comentario": "rota"},
    )
    assert asked.status_code == 201, asked.text
    ret = asked.json()
    assert (ret["estado"], ret["origen"]) == ("SOLICITADA", "customer")
    # a customer approves nothing; more than is left is refused
    refused = customer.gateway("PATCH", f"/api/devoluciones/{ret['id']}/status?status=APROBADA")
    assert refused.status_code == 403
    more = customer.gateway(
        "POST",
        f"/api/pedidos/{order['id']}/devoluciones",
        json={"lineas": [{"linea": 1, "cantidad": 2}], "motivo": "OTRO"},
    )
    assert (more.status_code, more.json()["error"]) == (409, "NOT_RETURNABLE")
    approved = http.gateway("PATCH", f"/api/devoluciones/{ret['id']}/status?status=APROBADA")
    assert approved.status_code == 200, approved.text

    lines = [{"linea": 1, "reingresar": 2, "descartar": 1, "bodegaId": 1}]
    path = f"/api/devoluciones/{ret['id']}/recepcion"
    with ThreadPoolExecutor(4) as pool:
        answers = list(
            pool.map(lambda _: http.gateway("POST", path, json={"lineas": lines}), range(4))
        )
    assert sorted(a.status_code for a in answers) == [200, 409, 409, 409], [a.text for a in answers]
    received = next(a.json() for a in answers if a.status_code == 200)
    assert received["estado"] == "RECIBIDA"
    assert received["lineas"][0]["reingresada"] == 2 and received["lineas"][0]["descartada"] == 1
    stock = http.gateway("GET", f"/api/inventario/{product['id']}").json()["stockActual"]
    assert stock == 10 - 4 + 2
    shown = customer.gateway("GET", f"/api/pedidos/{order['id']}").json()
    assert shown["lineas"][0]["cantidadDevuelta"] == 3
    history = customer.gateway("GET", f"/api/devoluciones/{ret['id']}/historial").json()
    assert [(h["status"], h["rol"]) for h in history] == [
        ("SOLICITADA", "customer"),
        ("APROBADA", "operator"),
        ("RECIBIDA", "operator"),
    ]
    mine = customer.gateway("GET", "/api/devoluciones?estado=RECIBIDA").json()
    assert [r["id"] for r in mine] == [ret["id"]]
