"""A person's data (docs/api.md#personal-data) holds their orders of several lines as the
API shows them, and an erasure strips those as any other: the lines, facts of the
business, stay."""

from tests.integration.test_personal_data import (  # noqa: F401 - fixtures used by name
    PASSWORD,
    Person,
    platform,
    queues,
    run_erasures,
)
from tests.integration.test_user_ids import a_product
from tests.support.api import body


def test_orders_of_several_lines_are_the_persons_and_keep_their_lines_when_erased(
    platform,  # noqa: F811 - the fixture imported above
    queues,  # noqa: F811
):
    ana = Person(platform)
    first, second = a_product(platform), a_product(platform)
    placed = platform.post(
        "/api/pedidos",
        {
            "userId": ana.user_id,
            "userEmail": ana.email,
            "clienteNombre": "Ana Torres",
            "tipoPedido": "NACIONAL",
            "destino": "Av. Arequipa 1234",
            "lineas": [{"productoId": first, "cantidad": 2}, {"productoId": second, "cantidad": 1}],
        },
    )
    assert placed.status_code == 201, placed.body
    order = body(placed)
    for step in ("APROBADO", "EN_ENVIO", "ENTREGADO"):
        order = body(platform.patch(f"/api/pedidos/{order['id']}/status?status={step}"))
    mine = body(platform.get("/api/usuarios/me/datos", token=ana.token))
    assert mine["pedidos"] == [order]
    assert [line["cantidadEntregada"] for line in mine["pedidos"][0]["lineas"]] == [2, 1]
    exported = body(platform.get("/api/usuarios/me/datos/exportar", token=ana.token))
    assert exported["pedidos"][0]["lineas"] == order["lineas"]

    erased = platform.post(
        "/api/usuarios/me/cancelacion",
        {"password": PASSWORD, "confirmacion": "ELIMINAR_MI_CUENTA"},
        token=ana.token,
    )
    assert erased.status_code == 200, erased.body
    assert run_erasures(queues, platform.pool) == 1
    stripped = {"userEmail": None, "clienteNombre": None, "destino": None, "observaciones": None}
    data = body(platform.get(f"/api/usuarios/{ana.user_id}/datos"))
    assert data["pedidos"] == [{**order, **stripped}]
    assert body(platform.get(f"/api/pedidos/{order['id']}")) == {**order, **stripped}
