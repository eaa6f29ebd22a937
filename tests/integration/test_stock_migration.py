"""Data stored before warehouses and orders of several lines (`make migrate-stock`, and
`make run` on the data it restores), and the stock's invariant check (`make
check-stock`, and the repair's slice of the catalog each run) against emulated DynamoDB."""

import os

import boto3
import pytest

from common.platform.settings import Cloud
from infra import stock_check, stock_migration
from tests.integration.test_stock_follows_orders import repair_of
from tests.support.api import body

# An order and a product as the version before warehouses stored them: the product's
# units one count, the order's one product, its reservation one item of its own.
OLD_PRODUCT = {
    "id": {"N": "1"},
    "sku": {"S": "OLD-1"},
    "nombre": {"S": "Caja"},
    "precioUnitario": {"N": "2.5"},
    "stockActual": {"N": "5"},
    "umbralMinimo": {"N": "0"},
    "stockReservado": {"N": "2"},
    "stockDisponible": {"N": "3"},
    "shard": {"N": "1"},
}
OLD_ORDER = {
    "id": {"N": "7"},
    "userId": {"N": "1"},
    "userEmail": {"S": "a@b.co"},
    "clienteNombre": {"S": "A"},
    "total": {"N": "5"},
    "status": {"S": "APROBADO"},
    "tipoPedido": {"S": "NACIONAL"},
    "destino": {"S": "Lima"},
    "productoId": {"N": "1"},
    "cantidad": {"N": "2"},
    "creadoEn": {"S": "2026-01-01T00:00:00.000000"},
    "statusShard": {"S": "APROBADO#7"},
    "shard": {"N": "7"},
}
OLD_RESERVATION = {
    "pedidoId": {"N": "7"},
    "productoId": {"N": "1"},
    "cantidad": {"N": "2"},
    "estado": {"S": "RESERVADA"},
    "desde": {"S": "2026-01-01T00:00:01.000000"},
    "cambio": {"S": "2026-01-01T00:00:01.000000"},
    "retiene": {"N": "1"},
    "retieneShard": {"S": "RETIENE#7"},
}


@pytest.fixture
def stored_before(tables):
    client = boto3.client("dynamodb")
    client.put_item(TableName="ProductsTable", Item=OLD_PRODUCT)
    client.put_item(
        TableName="ProductSkusTable", Item={"sku": {"S": "OLD-1"}, "productId": {"N": "1"}}
    )
    client.put_item(TableName="OrdersTable", Item=OLD_ORDER)
    client.put_item(TableName="StockReservationsTable", Item=OLD_RESERVATION)
    return client


def test_what_was_stored_before_reads_as_principal_and_one_line_then_is_carried_over(
    stored_before, api
):
    # read as it is: every unit in PRINCIPAL, the order its one line held there
    rows = body(api.get("/api/inventario/1/existencias"))
    assert [(r["bodegaId"], r["stockActual"], r["stockReservado"]) for r in rows] == [(1, 5, 2)]
    line = body(api.get("/api/pedidos/7"))["lineas"][0]
    assert (line["productoId"], line["cantidad"], line["asignaciones"]) == (
        1,
        2,
        [{"bodegaId": 1, "cantidad": 2}],
    )
    written = stock_migration.migrate(Cloud.from_env())
    assert (
        written["ProductsTable"],
        written["StockReservationsTable"],
        written["OrdersTable"],
    ) == (1, 1, 1)
    assert (
        "existencias"
        in stored_before.get_item(TableName="ProductsTable", Key={"id": {"N": "1"}})["Item"]
    )
    assert (
        "lineas" in stored_before.get_item(TableName="OrdersTable", Key={"id": {"N": "7"}})["Item"]
    )
    assert body(api.get("/api/bodegas"))[0]["codigo"] == "PRINCIPAL"
    reservas = body(api.get("/api/inventario/1/reservas"))
    assert [(r["pedidoId"], r["linea"], r["bodegaId"], r["cantidad"]) for r in reservas] == [
        (7, 1, 1, 2)
    ]
    # twice: nothing more
    again = stock_migration.migrate(Cloud.from_env())
    assert sum(again.values()) == 0
    # and it moves on as any order does
    assert api.patch("/api/pedidos/7/status?status=EN_ENVIO").status_code == 200
    shown = body(api.get("/api/inventario/1"))
    assert (shown["stockActual"], shown["stockReservado"], shown["stockDisponible"]) == (3, 0, 3)
    assert body(api.get("/api/pedidos/7"))["lineas"][0]["cantidadEnviada"] == 2


def test_make_run_migrates_what_it_restores_by_itself(stored_before, api, monkeypatch):
    """`make run` hands what its emulator restored to infra/dev/migrations.py (the
    stack's on_restored hook): the old product and order come out migrated."""
    from infra.dev import migrations

    url = os.environ["AWS_ENDPOINT_URL_DYNAMODB"]
    monkeypatch.setenv("AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER", url)
    pool = boto3.client("cognito-idp", endpoint_url=url).create_user_pool(PoolName="p")
    done = migrations.migrate(url, "us-east-1", pool["UserPool"]["Id"], {"ProductsTable": 1})
    assert done["stock into warehouses"] >= 2, done  # the product and the order
    product = stored_before.get_item(TableName="ProductsTable", Key={"id": {"N": "1"}})
    assert product["Item"]["existencias"]["M"]["1"]["M"]["reservado"] == {"N": "2"}
    order = stored_before.get_item(TableName="OrdersTable", Key={"id": {"N": "7"}})
    assert len(order["Item"]["lineas"]["L"]) == 1
    assert sum(stock_migration.migrate(Cloud.from_env()).values()) == 0  # done already
    assert api.patch("/api/pedidos/7/status?status=CANCELADO").status_code == 200
    shown = body(api.get("/api/inventario/1"))
    assert (shown["stockActual"], shown["stockReservado"]) == (5, 0)


def test_an_order_moved_before_the_migration_is_carried_over_by_its_first_move(stored_before, api):
    """Deployed, not yet migrated: the first move of an order finds its reservation where
    the earlier version kept it, and carries it over (never reserves it twice)."""
    assert api.patch("/api/pedidos/7/status?status=CANCELADO").status_code == 200
    shown = body(api.get("/api/inventario/1"))
    assert (shown["stockActual"], shown["stockReservado"]) == (5, 0)
    assert stock_migration.migrate(Cloud.from_env())["StockReservationsTable"] == 0


def test_counters_that_drift_from_the_ledger_are_found_and_put_right(api, tables):
    made = body(
        api.post(
            "/api/inventario",
            {"sku": "D-1", "nombre": "x", "precioUnitario": 1, "stockActual": 4, "umbralMinimo": 0},
        )
    )
    order = body(
        api.post(
            "/api/pedidos",
            {
                "userId": 1,
                "userEmail": "a@b.co",
                "clienteNombre": "A",
                "tipoPedido": "NACIONAL",
                "destino": "Lima",
                "lineas": [{"productoId": made["id"], "cantidad": 1}],
            },
        )
    )
    api.patch(f"/api/pedidos/{order['id']}/status?status=APROBADO")
    settled = "9999"  # every product's last move is before this
    assert stock_check.findings(Cloud.from_env(), settled) == []
    # a counter written by hand (or by a bug): PRINCIPAL says 3 reserved, the ledger 1
    tables.update_item(
        TableName="ProductsTable",
        Key={"id": {"N": str(made["id"])}},
        UpdateExpression="SET existencias.#p.reservado = :r, stockReservado = :r",
        ExpressionAttributeNames={"#p": "1"},
        ExpressionAttributeValues={":r": {"N": "3"}},
    )
    found = stock_check.findings(Cloud.from_env(), settled)
    assert {(f["bodegaId"], f["campo"], f["visto"], f["esperado"]) for f in found} == {
        (1, "stockReservado", 3, 1),
        (None, "stockReservado", 3, 1),
        (1, "stockDisponible", 3, 1),
        (None, "stockDisponible", 3, 1),
    }
    outcome = repair_of(api)(slices=range(16))
    assert outcome["drift"] == len(found)
    assert stock_check.findings(Cloud.from_env(), settled) == []
    shown = body(api.get(f"/api/inventario/{made['id']}"))
    assert (shown["stockActual"], shown["stockReservado"], shown["stockDisponible"]) == (4, 1, 3)
    assert repair_of(api)(slices=range(16))["drift"] == 0
