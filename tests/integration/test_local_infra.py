"""The local emulation: the emulator's atomicity and memory, tables from the template,
the invoke stand-in."""

import io
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import boto3
import pytest

from common.platform import aws
from common.platform.logs import get_logger
from common.platform.settings import Cloud, Http
from infra import template
from infra.local.emulator import AtomicPerTable, _TableLock, tables_named
from tests.support.dashboard import until
from tests.support.fake_lambda import LocalLambda


def dynamodb_request(operation: str, body: dict) -> dict:
    raw = json.dumps(body).encode()
    return {
        "HTTP_X_AMZ_TARGET": f"DynamoDB_20120810.{operation}",
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
    }


class RacyBackend:
    """Checks, waits, then writes: the window in which another request could pass the
    same check. Records how many requests were inside at once, per table."""

    def __init__(self):
        self.written: dict[str, list] = {}
        self.inside = 0
        self.most_inside = 0
        self._count = threading.Lock()

    def __call__(self, environ, start_response):
        body = json.loads(environ["wsgi.input"].read() or b"{}")
        key = body.get("TableName") or ",".join(sorted(body.get("RequestItems", {}))) or "*"
        with self._count:
            self.inside += 1
            self.most_inside = max(self.most_inside, self.inside)
        exists = key in self.written
        time.sleep(0.02)
        if not exists:
            self.written.setdefault(key, []).append(threading.get_ident())
        with self._count:
            self.inside -= 1
        start_response("200 OK", [])
        return [b"ok"]


def run_all(app, requests_: list[dict]) -> None:
    with ThreadPoolExecutor(len(requests_)) as pool:
        list(pool.map(lambda environ: app(environ, lambda *a: None), requests_))


def test_requests_on_one_table_are_atomic():
    backend = RacyBackend()
    run_all(
        AtomicPerTable(backend),
        [dynamodb_request("PutItem", {"TableName": "Skus"}) for _ in range(8)],
    )
    assert len(backend.written["Skus"]) == 1 and backend.most_inside == 1


def test_requests_on_different_tables_run_side_by_side():
    backend = RacyBackend()
    run_all(
        AtomicPerTable(backend),
        [dynamodb_request("GetItem", {"TableName": f"T{i}"}) for i in range(4)],
    )
    assert backend.most_inside > 1


def test_a_transaction_holds_every_table_it_names_and_the_catalog_holds_all():
    backend = RacyBackend()
    transaction = dynamodb_request(
        "TransactWriteItems",
        {"TransactItems": [{"Put": {"TableName": "A"}}, {"Put": {"TableName": "B"}}]},
    )
    assert tables_named(
        "DynamoDB_20120810.TransactWriteItems", transaction["wsgi.input"].getvalue()
    ) == {"A", "B"}
    assert tables_named(
        "DynamoDB_20120810.BatchWriteItem", b'{"RequestItems": {"C": [], "D": []}}'
    ) == {"C", "D"}
    assert tables_named("DynamoDB_20120810.CreateTable", b'{"TableName": "A"}') is None
    run_all(AtomicPerTable(backend), [transaction, dynamodb_request("PutItem", {"TableName": "B"})])
    assert backend.most_inside == 1
    catalog = RacyBackend()
    run_all(
        AtomicPerTable(catalog),
        [
            dynamodb_request("CreateTable", {"TableName": "E"}),
            dynamodb_request("GetItem", {"TableName": "F"}),
        ],
    )
    assert catalog.most_inside == 1


def test_tables_are_created_from_the_template(tables):
    declared = template.tables()
    assert set(declared) >= {"ProductsTable", "ProductSkusTable", "CountersTable"}
    for name, props in declared.items():
        described = tables.describe_table(TableName=name)["Table"]
        assert described["KeySchema"] == props["KeySchema"]
        assert described["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"


@pytest.fixture
def local_lambda():
    received = []
    done = threading.Event()

    def handler(event, context):
        received.append((event, context.function_name, threading.current_thread().name))
        done.set()
        return {"echo": event}

    lam = LocalLambda({"OrderEventsFunction": handler}, get_logger("local-lambda"))
    lam.server.start()
    client = boto3.client("lambda", endpoint_url=lam.server.url, region_name="us-east-1")
    yield client, received, done
    lam.server.stop()


def test_event_invocations_are_accepted_at_once_and_run_in_the_background(local_lambda):
    client, received, done = local_lambda
    response = client.invoke(
        FunctionName="OrderEventsFunction",
        InvocationType="Event",
        Payload=b'{"pedidoId": 1, "total": 19.99}',
    )
    assert response["StatusCode"] == 202
    assert done.wait(30)  # at once; a loaded machine can take seconds for a thread
    event, name, thread = received[0]
    assert event == {"pedidoId": 1, "total": Decimal("19.99")}
    assert name == "OrderEventsFunction" and thread.startswith("lambda-async")


def test_unknown_functions_are_not_found(local_lambda):
    client, _, _ = local_lambda
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.invoke(FunctionName="Nope", InvocationType="Event", Payload=b"{}")


def test_cors_allow_origin_is_honoured_on_success_and_on_errors():
    from chalice.config import Config
    from chalice.test import TestHTTPClient

    from common.http.service_app import ServiceBlueprint, create_app
    from common.platform.errors import Invalid

    http = Http.from_env({"CORS_ALLOW_ORIGIN": "https://ops.example.com"})
    routes = ServiceBlueprint("probe")
    routes.function = "InventoryFunction"

    @routes.route("/ok")
    def fine():
        return {"ok": True}

    @routes.route("/fail")
    def failing():
        raise Invalid("VALIDATION_ERROR", "no")

    client = TestHTTPClient(create_app("probe", http, routes), Config.create())
    for path in ("/ok", "/fail"):
        response = client.request("GET", path)
        assert response.headers["Access-Control-Allow-Origin"] == "https://ops.example.com"
    # Every error carries the same CORS headers, whether a view or the edge refused it.
    too_large = client.request("GET", "/ok", body=b"x" * (1024 * 1024 + 1))
    refused = client.request("GET", "/fail")
    assert too_large.status_code == 413 and refused.status_code == 400
    cors = {name for name in refused.headers if name.lower().startswith("access-control")}
    assert cors == {n for n in too_large.headers if n.lower().startswith("access-control")}


def test_the_emulator_holds_on_to_stored_items_only(tables):
    """moto copied a whole table for each transaction and kept every copy alive in its
    instance tracker: memory and latency grew with every product written."""
    import gc

    from moto.dynamodb.models.dynamo_type import Item

    from inventory.repository import ProductRepository
    from inventory.rules import parse_product, product

    with aws.acting_as("InventoryFunction"):
        products = ProductRepository(Cloud.from_env())
        for i in range(150):
            fields = parse_product(
                {
                    "sku": f"M-{i}",
                    "nombre": "n",
                    "precioUnitario": 1,
                    "stockActual": 1,
                    "umbralMinimo": 0,
                }
            )
            products.add(product(products.next_id(), fields))
    gc.collect()
    stored = 150 * 2 + 1  # each product, its sku claim, the counter
    alive = sum(1 for obj in gc.get_objects() if isinstance(obj, Item))
    assert alive < 2 * stored


def test_a_transaction_that_fails_while_writing_leaves_nothing_written(tables):
    tables.put_item(TableName="OrdersTable", Item={"id": {"N": "1"}, "status": {"S": "A"}})
    with pytest.raises(tables.exceptions.ClientError):
        tables.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "OrdersTable", "Item": {"id": {"N": "2"}}}},
                {
                    "Update": {
                        "TableName": "OrdersTable",
                        "Key": {"id": {"N": "1"}},
                        "UpdateExpression": "SET #s = :missing",
                        "ExpressionAttributeNames": {"#s": "status"},
                    }
                },
            ]
        )
    items = tables.scan(TableName="OrdersTable", ConsistentRead=True)["Items"]
    assert items == [{"id": {"N": "1"}, "status": {"S": "A"}}]


def test_a_cancelled_transaction_says_which_item_failed_and_writes_nothing(tables):
    tables.put_item(TableName="ProductSkusTable", Item={"sku": {"S": "A"}, "productId": {"N": "1"}})
    with pytest.raises(tables.exceptions.TransactionCanceledException) as err:
        tables.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "ProductsTable", "Item": {"id": {"N": "5"}}}},
                {
                    "Put": {
                        "TableName": "ProductSkusTable",
                        "Item": {"sku": {"S": "A"}},
                        "ConditionExpression": "attribute_not_exists(sku)",
                    }
                },
            ]
        )
    reasons = [r["Code"] for r in err.value.response["CancellationReasons"]]
    assert reasons == ["None", "ConditionalCheckFailed"]
    assert tables.scan(TableName="ProductsTable", ConsistentRead=True)["Items"] == []


def test_a_transaction_answers_each_items_reason_and_refuses_two_operations_on_one(tables):
    """The emulator's own transactions answer as moto's did: a reason per item in order
    (a ConditionCheck and a Delete of nothing pass), the old item where the failed one
    asks for it (ALL_OLD); two operations on one item refuse the whole request."""
    old = {"id": {"N": "1"}, "status": {"S": "A"}}
    tables.put_item(TableName="OrdersTable", Item=old)
    tables.put_item(TableName="OrdersTable", Item={"id": {"N": "2"}})
    set_b = {
        "TableName": "OrdersTable",
        "Key": {"id": {"N": "1"}},
        "UpdateExpression": "SET #s = :b",
        "ConditionExpression": "#s = :b",
        "ExpressionAttributeNames": {"#s": "status"},
        "ExpressionAttributeValues": {":b": {"S": "B"}},
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
    check = {
        "TableName": "OrdersTable",
        "Key": {"id": {"N": "2"}},
        "ConditionExpression": "attribute_exists(id)",
    }
    with pytest.raises(tables.exceptions.TransactionCanceledException) as err:
        tables.transact_write_items(
            TransactItems=[
                {"ConditionCheck": check},
                {"Delete": {"TableName": "OrdersTable", "Key": {"id": {"N": "3"}}}},
                {"Update": set_b},
            ]
        )
    reasons = err.value.response["CancellationReasons"]
    assert [r["Code"] for r in reasons] == ["None", "None", "ConditionalCheckFailed"]
    assert reasons[2]["Item"] == old
    with pytest.raises(tables.exceptions.ClientError) as refused:
        tables.transact_write_items(
            TransactItems=[
                {"Delete": {"TableName": "OrdersTable", "Key": {"id": {"N": "1"}}}},
                {"ConditionCheck": {**check, "Key": {"id": {"N": "1"}}}},
            ]
        )
    assert refused.value.response["Error"]["Code"] == "ValidationException"
    items = tables.scan(TableName="OrdersTable", ConsistentRead=True)["Items"]
    assert sorted(items, key=lambda item: item["id"]["N"]) == [old, {"id": {"N": "2"}}]


def _alike(ident: int, step: int, was: int) -> dict:
    """One update as PynamoDB sends items alike: the same text, each its own values."""
    return {
        "Update": {
            "TableName": "ProductsTable",
            "Key": {"id": {"N": str(ident)}},
            "UpdateExpression": "SET #n = #n + :d, #m = :d",
            "ConditionExpression": "#n = :was",
            "ExpressionAttributeNames": {"#n": "n", "#m": "m"},
            "ExpressionAttributeValues": {":d": {"N": str(step)}, ":was": {"N": str(was)}},
        }
    }


def test_forty_items_alike_are_each_written_by_their_own_values_or_none_is(tables):
    """infra/local/expressions.py keeps what moto parses of an expression's text: 20 puts
    and 20 updates of one text, the 40th failing its condition, write nothing; the same
    40 then write each item by its own values."""
    for ident in range(21, 41):
        tables.put_item(TableName="ProductsTable", Item={"id": {"N": str(ident)}, "n": {"N": "0"}})
    puts = [
        {"Put": {"TableName": "ProductsTable", "Item": {"id": {"N": str(i)}}}} for i in range(1, 21)
    ]
    updates = [_alike(ident, ident, 0) for ident in range(21, 41)]
    with pytest.raises(tables.exceptions.TransactionCanceledException) as err:
        tables.transact_write_items(TransactItems=[*puts, *updates[:-1], _alike(40, 40, 1)])
    assert [r["Code"] for r in err.value.response["CancellationReasons"]][-2:] == [
        "None",
        "ConditionalCheckFailed",
    ]
    items = tables.scan(TableName="ProductsTable", ConsistentRead=True)["Items"]
    assert sorted(int(item["id"]["N"]) for item in items) == list(range(21, 41))
    assert all(item["n"] == {"N": "0"} and "m" not in item for item in items)
    tables.transact_write_items(TransactItems=[*puts, *updates])
    items = tables.scan(TableName="ProductsTable", ConsistentRead=True)["Items"]
    written = {int(item["id"]["N"]): item for item in items}
    assert sorted(written) == list(range(1, 41))
    assert all(
        written[i] == {"id": {"N": str(i)}, "n": {"N": str(i)}, "m": {"N": str(i)}}
        for i in range(21, 41)
    )


def test_an_update_expression_refused_is_refused_every_time(tables):
    """What moto checks of an expression's text alone passes once per text, names and
    table: a key set through a name is refused each time, the same text naming another
    attribute is not."""
    tables.put_item(TableName="ProductsTable", Item={"id": {"N": "1"}})
    update = {
        "TableName": "ProductsTable",
        "Key": {"id": {"N": "1"}},
        "UpdateExpression": "SET #a = :v",
        "ExpressionAttributeValues": {":v": {"N": "2"}},
    }
    for _ in range(2):
        tables.update_item(**update, ExpressionAttributeNames={"#a": "other"})
        with pytest.raises(tables.exceptions.ClientError) as refused:
            tables.update_item(**update, ExpressionAttributeNames={"#a": "id"})
        assert refused.value.response["Error"]["Code"] == "ValidationException"
        with pytest.raises(tables.exceptions.ClientError) as twice:
            tables.update_item(
                **{**update, "UpdateExpression": "SET #a = :v SET #a = :v"},
                ExpressionAttributeNames={"#a": "other"},
            )
        assert twice.value.response["Error"]["Code"] == "ValidationException"
    item = tables.get_item(TableName="ProductsTable", Key={"id": {"N": "1"}}, ConsistentRead=True)
    assert item["Item"] == {"id": {"N": "1"}, "other": {"N": "2"}}


def test_an_index_query_sees_every_write_made_before_it(tables):
    """The emulator groups an index's partitions once and keeps them until the table is
    next written: a put, an update that moves an item to another partition, and a
    delete must each show in the next query."""

    def ids_in(partition: str) -> list[int]:
        answer = tables.query(
            TableName="ShipmentsTable",
            IndexName="byStatusShard",
            KeyConditionExpression="statusShard = :p AND id > :after",
            ExpressionAttributeValues={":p": {"S": partition}, ":after": {"N": "0"}},
        )
        return [int(item["id"]["N"]) for item in answer["Items"]]

    def put(ident: int, partition: str) -> None:
        tables.put_item(
            TableName="ShipmentsTable",
            Item={
                "id": {"N": str(ident)},
                "statusShard": {"S": partition},
                "shard": {"N": str(ident % 2)},
            },
        )

    for ident in (3, 1, 2):
        put(ident, "CREADO#0")
    assert ids_in("CREADO#0") == [1, 2, 3]
    put(4, "CREADO#0")
    tables.update_item(
        TableName="ShipmentsTable",
        Key={"id": {"N": "2"}},
        UpdateExpression="SET statusShard = :p",
        ExpressionAttributeValues={":p": {"S": "EN_RUTA#0"}},
    )
    tables.delete_item(TableName="ShipmentsTable", Key={"id": {"N": "3"}})
    assert ids_in("CREADO#0") == [1, 4]
    assert ids_in("EN_RUTA#0") == [2]
    # A page after an id (what a merged list asks) reads from there, and says whether
    # the partition goes on past its limit as a read of the whole partition would.
    put(6, "CREADO#0")

    def page(after: int, limit: int) -> tuple[list[int], bool]:
        answer = tables.query(
            TableName="ShipmentsTable",
            IndexName="byStatusShard",
            Limit=limit,
            KeyConditionExpression="statusShard = :p AND id > :after",
            ExpressionAttributeValues={":p": {"S": "CREADO#0"}, ":after": {"N": str(after)}},
        )
        return [int(i["id"]["N"]) for i in answer["Items"]], "LastEvaluatedKey" in answer

    assert page(1, 1) == ([4], True)
    assert page(2, 2) == ([4, 6], False)
    assert page(4, 5) == ([6], False)
    assert page(6, 1) == ([], False)
    # A number partition key (the byShard index) is grouped the same way.
    answer = tables.query(
        TableName="ShipmentsTable",
        IndexName="byShard",
        KeyConditionExpression="shard = :s",
        ExpressionAttributeValues={":s": {"N": "0"}},
    )
    assert [int(item["id"]["N"]) for item in answer["Items"]] == [2, 4, 6]


def test_items_of_every_type_come_back_as_they_were_written(tables):
    """The emulator writes item answers as plain JSON (infra/local/emulator.py): every
    attribute type reads back exactly through each read and write that returns items."""
    tables.create_table(
        TableName="Typed",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": "id", "AttributeType": "N"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byG",
                "KeySchema": [
                    {"AttributeName": "g", "KeyType": "HASH"},
                    {"AttributeName": "id", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    item = {
        "id": {"N": "7"},
        "g": {"S": "a"},
        "b": {"B": b"\x00\xff"},
        "bs": {"BS": [b"\x01"]},
        "l": {"L": [{"N": "1.5"}, {"S": "x"}, {"NULL": True}]},
        "m": {"M": {"k": {"BOOL": False}, "n": {"N": "-0.001"}}},
        "ss": {"SS": ["a", "b"]},
        "ns": {"NS": ["1", "2"]},
        "s": {"S": "Ruta terrestre — Medellín \U0001f69a"},
        "big": {"N": "1" + "0" * 38},
    }
    tables.put_item(TableName="Typed", Item=item)
    key = {"id": {"N": "7"}}
    got = tables.get_item(TableName="Typed", Key=key, ConsistentRead=True)["Item"]
    queried = tables.query(
        TableName="Typed",
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "a"}},
    )["Items"]
    batch = tables.batch_get_item(RequestItems={"Typed": {"Keys": [key]}})["Responses"]
    updated = tables.update_item(
        TableName="Typed",
        Key=key,
        UpdateExpression="SET s = s",
        ReturnValues="ALL_NEW",
    )["Attributes"]

    def same(found: dict) -> dict:  # sets come back in any order
        return {
            name: {kind: sorted(value) if kind in ("SS", "NS", "BS") else value}
            for name, typed in found.items()
            for kind, value in typed.items()
        }

    for found in (got, queried[0], batch["Typed"][0], updated):
        assert same(found) == same(item)
    tables.delete_table(TableName="Typed")


def test_a_tables_lock_goes_to_a_request_of_an_item_before_those_of_many():
    """Four whole lists at once queued dozens of queries and batches on OrdersTable, and
    a plain lock let them win over a shipment's GetItem of its order, which waited past
    its 2 s (a 503 on a stack holding 1,200 orders). Judged by who gets the lock next
    while a bulk read holds it and another bulk read waited first, not by seconds."""
    lock, order, release = _TableLock(), [], threading.Event()

    def request(name: str, bulk: bool, hold: threading.Event | None = None) -> None:
        with lock.held(bulk):
            order.append(name)
            if hold is not None:
                hold.wait()

    first = threading.Thread(target=request, args=("query 1", True, release))
    first.start()
    assert until(lambda: list(order), lambda got: got == ["query 1"], 60) == ["query 1"]
    waiting = [
        threading.Thread(target=request, args=("query 2", True)),
        threading.Thread(target=request, args=("get item", False)),
    ]
    for index, thread in enumerate(waiting):
        thread.start()
        waiting_now = until(lambda: sum(lock.waiting), lambda got, n=index + 1: got == n, 60)
        assert waiting_now == index + 1
    release.set()
    for thread in (first, *waiting):
        thread.join()
    assert order == ["query 1", "get item", "query 2"]
