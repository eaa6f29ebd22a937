"""The emulator's DynamoDB Streams (infra/local/streams.py): a record for every committed
write of every kind the platform makes, and none for a write that was refused, undone,
throttled, restored at start, or that changed nothing. The webhook events are made of
these records, so each one is an event a client would get."""

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from infra import template
from infra.local.emulator import emulator
from infra.local.partition_writes import PartitionWrites
from infra.local.persistence import DataDir

REGION = "us-east-1"


class Stream:
    """One table's stream, read from where it stood when this was made."""

    def __init__(self, url: str, table: str, start: str = "LATEST"):
        self.client = boto3.client("dynamodbstreams", endpoint_url=url, region_name=REGION)
        arn = boto3.client("dynamodb", endpoint_url=url, region_name=REGION).describe_table(
            TableName=table
        )["Table"]["LatestStreamArn"]
        (shard,) = self.client.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        self.iterator = self.client.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType=start
        )["ShardIterator"]

    def read(self) -> list[tuple[str, dict | None, dict | None]]:
        """(eventName, OldImage, NewImage) of each record since the last read."""
        answer = self.client.get_records(ShardIterator=self.iterator)
        self.iterator = answer["NextShardIterator"]
        return [
            (r["eventName"], r["dynamodb"].get("OldImage"), r["dynamodb"].get("NewImage"))
            for r in answer["Records"]
        ]


def order(ident: int, status: str = "PENDIENTE") -> dict:
    return {"id": {"N": str(ident)}, "status": {"S": status}}


@pytest.fixture
def orders(tables, emulator):
    return Stream(emulator.url, "OrdersTable")


def test_the_template_gives_orders_shipments_and_products_their_streams(tables):
    for name in ("OrdersTable", "ShipmentsTable", "ProductsTable"):
        spec = tables.describe_table(TableName=name)["Table"]["StreamSpecification"]
        assert spec == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}


def test_each_kind_of_write_makes_its_record_with_both_images(tables, orders):
    tables.put_item(TableName="OrdersTable", Item=order(1))
    tables.update_item(
        TableName="OrdersTable",
        Key={"id": {"N": "1"}},
        UpdateExpression="SET #s = :s",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": {"S": "APROBADO"}},
    )
    tables.put_item(TableName="OrdersTable", Item=order(1, "CANCELADO"))
    tables.transact_write_items(
        TransactItems=[{"Put": {"TableName": "OrdersTable", "Item": order(2)}}]
    )
    tables.delete_item(TableName="OrdersTable", Key={"id": {"N": "2"}})
    assert orders.read() == [
        ("INSERT", None, order(1)),
        ("MODIFY", order(1), order(1, "APROBADO")),
        ("MODIFY", order(1, "APROBADO"), order(1, "CANCELADO")),
        ("INSERT", None, order(2)),
        ("REMOVE", order(2), None),
    ]


def test_a_write_that_changes_nothing_makes_no_record(tables, orders):
    tables.put_item(TableName="OrdersTable", Item=order(1))
    tables.put_item(TableName="OrdersTable", Item=order(1))
    assert [name for name, _, _ in orders.read()] == ["INSERT"]


def test_a_refused_write_makes_no_record(tables, orders):
    tables.put_item(TableName="OrdersTable", Item=order(1))
    with pytest.raises(ClientError):
        tables.put_item(
            TableName="OrdersTable",
            Item=order(1, "APROBADO"),
            ConditionExpression="attribute_not_exists(id)",
        )
    with pytest.raises(ClientError):  # cancelled: its second item's condition fails
        tables.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "OrdersTable", "Item": order(2)}},
                {
                    "Put": {
                        "TableName": "OrdersTable",
                        "Item": order(1, "CANCELADO"),
                        "ConditionExpression": "attribute_not_exists(id)",
                    }
                },
            ]
        )
    assert [name for name, _, _ in orders.read()] == ["INSERT"]


def test_a_transaction_undone_while_writing_leaves_no_record(tables, orders):
    tables.put_item(TableName="OrdersTable", Item=order(1))
    orders.read()
    with pytest.raises(ClientError):
        tables.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "OrdersTable", "Item": order(2)}},
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
    tables.put_item(TableName="OrdersTable", Item=order(3))
    assert orders.read() == [("INSERT", None, order(3))]


def test_a_throttled_write_leaves_no_record(emulator):
    throttled = emulator_of_its_own(PartitionWrites(rate=1, burst=1))
    try:
        client = boto3.client(
            "dynamodb",
            endpoint_url=throttled.url,
            region_name=REGION,
            config=Config(retries={"total_max_attempts": 1}),
        )
        template.drop_tables(client)
        template.create_tables(client)
        stream = Stream(throttled.url, "OrdersTable")
        client.put_item(TableName="OrdersTable", Item=order(1))
        with pytest.raises(ClientError, match="ProvisionedThroughputExceeded"):
            client.put_item(TableName="OrdersTable", Item=order(1, "APROBADO"))
        assert [name for name, _, _ in stream.read()] == ["INSERT"]
    finally:
        throttled.stop()


def emulator_of_its_own(partitions: PartitionWrites | None = None):
    return emulator(partitions=partitions).start()


def test_the_data_restored_at_start_makes_no_record(tables, emulator, tmp_path):
    data = DataDir(tmp_path).hold()
    try:
        emulator.keep_in(data, REGION)
        tables.put_item(TableName="OrdersTable", Item=order(1))
        emulator._stopped()  # saved, as a stack's stop saves it
        template.drop_tables(tables)
        template.create_tables(tables)
        assert emulator.keep_in(data, REGION)["OrdersTable"] == 1  # a write of each item
        emulator.streams_from_now(REGION)
        stream = Stream(emulator.url, "OrdersTable", "TRIM_HORIZON")
        assert stream.read() == []
        tables.put_item(TableName="OrdersTable", Item=order(2))
        assert stream.read() == [("INSERT", None, order(2))]
    finally:
        emulator._stopped()
        emulator.snapshots = None
        data.release()
