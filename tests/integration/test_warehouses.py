"""Warehouses and the stock per warehouse (docs/api.md#warehouses,
docs/api.md#stock-per-warehouse) through the gateway app against emulated DynamoDB."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from common.platform.settings import Tokens
from infra.dev.tokens import local_token
from tests.support.api import body
from tests.support.samples import PRODUCT

NORTE = {"codigo": "NORTE", "nombre": "Bodega Norte", "region": "Antofagasta", "prioridad": 10}


def customer() -> str:
    return local_token(Tokens.from_env(), "c@example.com", "customer", 5)


def made(api, warehouse: dict = NORTE) -> dict:
    response = api.post("/api/bodegas", warehouse)
    assert response.status_code == 201, response.body
    return body(response)


def product(api, **fields) -> dict:
    response = api.post("/api/inventario", {**PRODUCT, **fields})
    assert response.status_code == 201, response.body
    return body(response)


def rows(api, product_id: int) -> list[dict]:
    response = api.get(f"/api/inventario/{product_id}/existencias")
    assert response.status_code == 200, response.body
    return body(response)


def test_every_stack_has_principal_and_operators_make_more(api):
    listed = body(api.get("/api/bodegas"))
    assert [(w["id"], w["codigo"]) for w in listed] == [(1, "PRINCIPAL")]
    assert set(listed[0]) == {"id", "codigo", "nombre", "region", "prioridad", "creadoEn"}
    assert listed[0]["prioridad"] == 100
    norte = api.post("/api/bodegas", NORTE)
    assert norte.status_code == 201
    shown = body(norte)
    assert norte.headers["Location"].endswith(f"/api/bodegas/{shown['id']}")
    assert shown["id"] > 1 and {k: shown[k] for k in NORTE} == NORTE
    defaulted = made(api, {"codigo": "SUR-2", "nombre": "Sur"})
    assert (defaulted["prioridad"], defaulted["region"]) == (100, None)
    assert [w["codigo"] for w in body(api.get("/api/bodegas"))] == ["PRINCIPAL", "NORTE", "SUR-2"]
    assert body(api.get(f"/api/bodegas/{shown['id']}")) == shown


def test_a_code_is_unique_and_never_changes(api):
    first = made(api)
    again = api.post("/api/bodegas", {**NORTE, "nombre": "Otra"})
    assert (again.status_code, body(again)["error"]) == (409, "DUPLICATE_CODE")
    principal = api.post("/api/bodegas", {"codigo": "PRINCIPAL", "nombre": "x"})
    assert body(principal)["error"] == "DUPLICATE_CODE"
    replaced = api.put(
        f"/api/bodegas/{first['id']}", {"codigo": "OTRO", "nombre": "Norte 2", "prioridad": 5}
    )
    assert replaced.status_code == 200
    assert {k: body(replaced)[k] for k in ("codigo", "nombre", "region", "prioridad")} == {
        "codigo": "NORTE",
        "nombre": "Norte 2",
        "region": None,
        "prioridad": 5,
    }


def test_concurrent_creates_of_one_code_make_one(api):
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: api.post("/api/bodegas", NORTE), range(6)))
    assert sorted(r.status_code for r in answers) == [201] + [409] * 5
    assert [w["codigo"] for w in body(api.get("/api/bodegas"))] == ["PRINCIPAL", "NORTE"]


@pytest.mark.parametrize(
    ("sent", "field"),
    [
        ({"codigo": "norte", "nombre": "x"}, "codigo"),
        ({"codigo": "A" * 33, "nombre": "x"}, "codigo"),
        ({"codigo": "A B", "nombre": "x"}, "codigo"),
        ({"codigo": "A", "nombre": " "}, "nombre"),
        ({"codigo": "A", "nombre": "x", "prioridad": 1001}, "prioridad"),
        ({"codigo": "A", "nombre": "x", "prioridad": -1}, "prioridad"),
        ({"codigo": "A", "nombre": "x", "prioridad": 1.5}, "prioridad"),
        ({"nombre": "x"}, "codigo"),
    ],
)
def test_a_bad_warehouse_is_refused(api, sent, field):
    refused = api.post("/api/bodegas", sent)
    assert refused.status_code == 400
    assert body(refused)["error"] == "VALIDATION_ERROR"
    assert [d["field"] for d in body(refused)["details"]] == [field]


def test_unknown_ids_and_customers(api):
    assert body(api.get("/api/bodegas/99"))["error"] == "WAREHOUSE_NOT_FOUND"
    assert api.put("/api/bodegas/99", {"nombre": "x"}).status_code == 404
    assert api.delete("/api/bodegas/99").status_code == 404
    assert body(api.get("/api/bodegas/abc"))["error"] == "INVALID_ID"
    for method, path in (
        ("GET", "/api/bodegas"),
        ("POST", "/api/bodegas"),
        ("GET", "/api/bodegas/1"),
    ):
        answer = api.request(method, path, NORTE, token=customer())
        assert answer.status_code == 403, (method, path)
    item = product(api)
    assert api.get(f"/api/inventario/{item['id']}/existencias", token=customer()).status_code == 403


def test_a_product_s_units_go_to_principal_or_the_warehouse_named(api):
    norte = made(api)
    home = product(api)
    there = product(api, sku="C-2", stockActual=4, bodegaId=norte["id"])
    assert "bodegaId" not in there and there["stockActual"] == 4
    assert rows(api, home["id"]) == [
        {
            "bodegaId": 1,
            "codigo": "PRINCIPAL",
            "stockActual": 10,
            "stockReservado": 0,
            "stockDisponible": 10,
        }
    ]
    assert [(r["bodegaId"], r["stockActual"]) for r in rows(api, there["id"])] == [(norte["id"], 4)]
    unknown = api.post("/api/inventario", {**PRODUCT, "sku": "C-3", "bodegaId": 99})
    assert unknown.status_code == 400
    assert body(unknown)["details"][0]["field"] == "bodegaId"


def test_counts_and_transfers_move_the_rows_and_the_sums(api):
    norte = made(api)
    item = product(api, stockActual=10, umbralMinimo=12)
    path = f"/api/inventario/{item['id']}"
    counted = api.put(f"{path}/existencias/{norte['id']}", {"stockActual": 5})
    assert counted.status_code == 200
    assert body(counted) == {
        "bodegaId": norte["id"],
        "codigo": "NORTE",
        "stockActual": 5,
        "stockReservado": 0,
        "stockDisponible": 5,
    }
    shown = body(api.get(path))
    assert (shown["stockActual"], shown["stockDisponible"]) == (15, 15)
    assert [p["id"] for p in body(api.get("/api/inventario/alertas"))] == []  # 15 >= 12
    moved = api.post(f"{path}/transferencias", {"desde": 1, "hacia": norte["id"], "cantidad": 4})
    assert moved.status_code == 200
    assert [(r["bodegaId"], r["stockActual"]) for r in body(moved)] == [(1, 6), (norte["id"], 9)]
    assert body(api.get(path))["stockActual"] == 15
    too_many = api.post(f"{path}/transferencias", {"desde": 1, "hacia": norte["id"], "cantidad": 7})
    assert (too_many.status_code, body(too_many)["error"]) == (409, "INSUFFICIENT_STOCK")
    assert [(r["bodegaId"], r["stockActual"]) for r in rows(api, item["id"])] == [
        (1, 6),
        (norte["id"], 9),
    ]
    same = api.post(f"{path}/transferencias", {"desde": 1, "hacia": 1, "cantidad": 1})
    assert same.status_code == 400
    none = api.post(f"{path}/transferencias", {"desde": 1, "hacia": norte["id"], "cantidad": 0})
    assert none.status_code == 400
    unknown = api.post(f"{path}/transferencias", {"desde": 1, "hacia": 99, "cantidad": 1})
    assert (unknown.status_code, body(unknown)["error"]) == (404, "WAREHOUSE_NOT_FOUND")
    assert api.put(f"{path}/existencias/99", {"stockActual": 1}).status_code == 404
    assert api.put("/api/inventario/99/existencias/1", {"stockActual": 1}).status_code == 404
    assert api.put(f"{path}/existencias/1", {"stockActual": -1}).status_code == 400
    # the count goes below its threshold: into the alerts
    api.put(f"{path}/existencias/{norte['id']}", {"stockActual": 0})
    assert [p["id"] for p in body(api.get("/api/inventario/alertas"))] == [item["id"]]


def test_a_replace_sets_the_count_only_where_the_units_are(api):
    norte = made(api)
    item = product(api, stockActual=10)
    path = f"/api/inventario/{item['id']}"
    sent_back = body(api.get(path))
    assert api.put(path, sent_back).status_code == 200  # the same stockActual: rows untouched
    recounted = api.put(path, {**PRODUCT, "stockActual": 7})
    assert body(recounted)["stockActual"] == 7
    assert [(r["bodegaId"], r["stockActual"]) for r in rows(api, item["id"])] == [(1, 7)]
    api.post(f"{path}/transferencias", {"desde": 1, "hacia": norte["id"], "cantidad": 3})
    unchanged = api.put(path, {**PRODUCT, "nombre": "Caja grande", "stockActual": 7})
    assert unchanged.status_code == 200 and body(unchanged)["nombre"] == "Caja grande"
    several = api.put(path, {**PRODUCT, "stockActual": 9})
    assert (several.status_code, body(several)["error"]) == (409, "STOCK_IN_SEVERAL_WAREHOUSES")
    assert {d["message"] for d in body(several)["details"]} == {
        "warehouse 1 holds units of it",
        f"warehouse {norte['id']} holds units of it",
    }
    assert body(api.get(path))["stockActual"] == 7
    # all in one warehouse again: a replace counts that one
    api.post(f"{path}/transferencias", {"desde": 1, "hacia": norte["id"], "cantidad": 4})
    assert body(api.put(path, {**PRODUCT, "stockActual": 2}))["stockActual"] == 2
    assert [(r["bodegaId"], r["stockActual"]) for r in rows(api, item["id"])] == [
        (1, 0),
        (norte["id"], 2),
    ]


def test_a_warehouse_in_use_is_not_deleted(api):
    norte = made(api)
    empty = made(api, {"codigo": "VACIA", "nombre": "Vacía"})
    item = product(api, stockActual=3)
    path = f"/api/inventario/{item['id']}"
    api.post(f"{path}/transferencias", {"desde": 1, "hacia": norte["id"], "cantidad": 3})
    in_use = api.delete(f"/api/bodegas/{norte['id']}")
    assert (in_use.status_code, body(in_use)["error"]) == (409, "WAREHOUSE_IN_USE")
    principal = api.delete("/api/bodegas/1")
    assert (principal.status_code, body(principal)["error"]) == (409, "WAREHOUSE_IN_USE")
    assert api.delete(f"/api/bodegas/{empty['id']}").status_code == 204
    assert api.get(f"/api/bodegas/{empty['id']}").status_code == 404
    # emptied: it may go, and its row with it
    api.post(f"{path}/transferencias", {"desde": norte["id"], "hacia": 1, "cantidad": 3})
    assert api.delete(f"/api/bodegas/{norte['id']}").status_code == 204
    assert [r["bodegaId"] for r in rows(api, item["id"])] == [1]
    again = api.post("/api/bodegas", NORTE)  # its code is free again
    assert again.status_code == 201
    assert body(again)["id"] > norte["id"]
