"""The emulator's count of writes per partition key, and its throttle
(infra/local/partition_writes.py): the partitions DynamoDB would charge, and a key over
its rate refused the way DynamoDB refuses it, with nothing written."""

import boto3
import pytest
import requests
from botocore.config import Config
from botocore.exceptions import ClientError

from infra import template
from infra.local.emulator import emulator
from infra.local.partition_writes import PARTITION_WRITES_PATH, PartitionWrites

REGION = "us-east-1"
ORDER = {
    "id": {"N": "7"},
    "shard": {"N": "7"},
    "statusShard": {"S": "PENDIENTE#7"},
    "status": {"S": "PENDIENTE"},
    "userId": {"N": "3"},
    "eventoPendiente": {"S": "PENDING#7"},
}


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Metered:
    """An emulator of this test's own that counts (and may throttle) partition writes,
    on the process's tables, and a client that never retries (to see every refusal)."""

    def __init__(self, partitions: PartitionWrites):
        self.partitions = partitions
        self.server = emulator(partitions=partitions).start()
        self.client = boto3.client(
            "dynamodb",
            endpoint_url=self.server.url,
            region_name=REGION,
            config=Config(retries={"total_max_attempts": 1}),
        )
        template.drop_tables(self.client)
        template.create_tables(self.client)

    def written(self) -> dict[tuple, int]:
        """{(table or table/index/name, key): writes}, from the emulator's own answer."""
        report = requests.get(
            f"{self.server.url}{PARTITION_WRITES_PATH}?top=100", timeout=10
        ).json()
        return {
            (
                key["table"] if key["index"] is None else f"{key['table']}/index/{key['index']}",
                key["key"],
            ): key["writes"]
            for key in report["hottest"]
        }

    def reset(self) -> None:
        requests.delete(f"{self.server.url}{PARTITION_WRITES_PATH}", timeout=10)

    def items(self, table: str) -> list[dict]:
        return self.client.scan(TableName=table, ConsistentRead=True)["Items"]


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def metered(emulator, clock):
    started = Metered(PartitionWrites(clock=clock))
    yield started
    started.server.stop()


@pytest.fixture
def throttled(emulator, clock):
    started = Metered(PartitionWrites(rate=1, burst=3, clock=clock))
    yield started
    started.server.stop()


def test_a_put_writes_the_tables_partition_and_each_index_it_enters(metered):
    metered.client.put_item(TableName="OrdersTable", Item=ORDER)
    assert metered.written() == {
        ("OrdersTable", "7"): 1,
        ("OrdersTable/index/byShard", "7"): 1,
        ("OrdersTable/index/byStatusShard", "PENDIENTE#7"): 1,
        ("OrdersTable/index/byUser", "3"): 1,
        ("OrdersTable/index/pendingEvents", "PENDING#7"): 1,
    }


def test_an_update_writes_an_index_only_when_what_it_holds_changes(metered):
    metered.client.put_item(TableName="OrdersTable", Item=ORDER)
    metered.reset()
    # Off the outbox: the pending index loses the order, byUser (all attributes) changes;
    # the status index (every attribute but the outbox mark) and byShard (keys only) not.
    metered.client.update_item(
        TableName="OrdersTable", Key={"id": {"N": "7"}}, UpdateExpression="REMOVE eventoPendiente"
    )
    assert metered.written() == {
        ("OrdersTable", "7"): 1,
        ("OrdersTable/index/pendingEvents", "PENDING#7"): 1,
        ("OrdersTable/index/byUser", "3"): 1,
    }
    metered.reset()
    # A status change moves it from one status shard to another: both are written.
    metered.client.update_item(
        TableName="OrdersTable",
        Key={"id": {"N": "7"}},
        UpdateExpression="SET #s = :s, statusShard = :k",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": {"S": "APROBADO"}, ":k": {"S": "APROBADO#7"}},
    )
    assert metered.written() == {
        ("OrdersTable", "7"): 1,
        ("OrdersTable/index/byStatusShard", "PENDIENTE#7"): 1,
        ("OrdersTable/index/byStatusShard", "APROBADO#7"): 1,
        ("OrdersTable/index/byUser", "3"): 1,
    }


def test_a_write_whose_condition_fails_is_charged_to_its_table_partition_only(metered):
    metered.client.put_item(TableName="OrdersTable", Item=ORDER)
    metered.reset()
    with pytest.raises(ClientError) as err:
        metered.client.put_item(
            TableName="OrdersTable", Item=ORDER, ConditionExpression="attribute_not_exists(id)"
        )
    assert err.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    assert metered.written() == {("OrdersTable", "7"): 1}


def test_a_key_over_its_rate_is_refused_as_dynamodb_refuses_it_and_nothing_is_written(
    throttled, clock
):
    counter = {
        "TableName": "CountersTable",
        "Key": {"name": {"S": "orders"}},
        "UpdateExpression": "ADD #v :one",
        "ExpressionAttributeNames": {"#v": "value"},
        "ExpressionAttributeValues": {":one": {"N": "1"}},
    }
    for _ in range(3):  # the burst
        throttled.client.update_item(**counter)
    with pytest.raises(ClientError) as err:
        throttled.client.update_item(**counter)
    answer = err.value.response
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert answer["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert throttled.items("CountersTable") == [{"name": {"S": "orders"}, "value": {"N": "3"}}]
    # Another key is not held back by this one's.
    throttled.client.update_item(**{**counter, "Key": {"name": {"S": "products"}}})
    clock.now += 1  # one write's worth of refill
    throttled.client.update_item(**counter)
    with pytest.raises(ClientError):
        throttled.client.update_item(**counter)
    report = requests.get(throttled.server.url + PARTITION_WRITES_PATH, timeout=10).json()
    assert report["throttled"] == 2
    assert throttled.written()[("CountersTable", "orders")] == 4


def test_a_hot_index_partition_refuses_the_table_write_behind_it(throttled):
    # Different orders, one status partition: the index, not the table, is the limit.
    for ident in range(1, 4):
        throttled.client.put_item(
            TableName="ShipmentsTable",
            Item={"id": {"N": str(ident)}, "statusShard": {"S": "CREADO"}},
        )
    with pytest.raises(ClientError) as err:
        throttled.client.put_item(
            TableName="ShipmentsTable", Item={"id": {"N": "4"}, "statusShard": {"S": "CREADO"}}
        )
    assert err.value.response["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert sorted(int(i["id"]["N"]) for i in throttled.items("ShipmentsTable")) == [1, 2, 3]


def test_a_throttled_transaction_leaves_every_item_as_it_was(throttled):
    claim = {"TableName": "ProductSkusTable", "Item": {"sku": {"S": "A"}, "productId": {"N": "1"}}}
    for _ in range(3):
        throttled.client.put_item(**claim)
    with pytest.raises(ClientError) as err:
        throttled.client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "ProductsTable", "Item": {"id": {"N": "9"}}}},
                {"Put": {**claim, "Item": {"sku": {"S": "A"}, "productId": {"N": "9"}}}},
            ]
        )
    assert err.value.response["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert throttled.items("ProductsTable") == []
    assert throttled.items("ProductSkusTable") == [claim["Item"]]
