"""The emulator's tables on disk (LOCAL_DATA_DIR): saved as they change, restored at start,
never at the cost of its per-table atomicity, and never written over when unreadable."""

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest
from botocore.exceptions import ClientError

from infra import template
from infra.local.emulator import emulator
from infra.local.persistence import SNAPSHOT_FILE, DataDir, DataError

REGION = "us-east-1"


class Started:
    """An emulator of this test's own, its tables fresh from the template, and a client."""

    def __init__(self, data: DataDir | None):
        self.server = emulator().start()
        self.client = boto3.client("dynamodb", endpoint_url=self.server.url, region_name=REGION)
        template.drop_tables(self.client)  # moto's tables are the process's, not the server's
        template.create_tables(self.client)
        self.restored = self.server.keep_in(data, REGION, {"CountersTable"}) if data else {}

    def stop(self) -> None:
        self.server.stop()
        self.server.tables(REGION).clear()  # behind the saved files' back, not through them


@pytest.fixture
def started():
    servers = []

    def start(data: DataDir | None) -> Started:
        servers.append(Started(data))
        return servers[-1]

    yield start
    for server in servers:
        if server.server.serving:
            server.stop()


def next_id(client, entity: str) -> int:
    answer = client.update_item(
        TableName="CountersTable",
        Key={"name": {"S": entity}},
        UpdateExpression="ADD #v :one",
        ExpressionAttributeNames={"#v": "value"},
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["value"]["N"])


def create_product(client, sku: str) -> int | None:
    """A product and its sku claim in one transaction, as the inventory creates them."""
    product_id = next_id(client, "product")
    try:
        client.transact_write_items(
            TransactItems=[
                {
                    "Put": {
                        "TableName": "ProductSkusTable",
                        "Item": {"sku": {"S": sku}, "productId": {"N": str(product_id)}},
                        "ConditionExpression": "attribute_not_exists(sku)",
                    }
                },
                {
                    "Put": {
                        "TableName": "ProductsTable",
                        "Item": {"id": {"N": str(product_id)}, "sku": {"S": sku}},
                    }
                },
            ]
        )
    except ClientError:
        return None
    return product_id


def items(client, table: str) -> list[dict]:
    return client.scan(TableName=table, ConsistentRead=True)["Items"]


def test_a_clean_stop_saves_every_write_made_under_concurrency_and_a_start_restores_it(
    started, tmp_path
):
    data = DataDir(tmp_path).hold()
    first = started(data)
    # 8 writers, two per sku: the claims must still let exactly one product per sku in.
    with ThreadPoolExecutor(8) as pool:
        created = list(
            pool.map(lambda n: create_product(first.client, f"SKU-{n // 2}"), range(160))
        )
    ids = sorted(i for i in created if i is not None)
    assert len(ids) == 80
    first.stop()
    data.release()

    again = started(DataDir(tmp_path).hold())
    assert {name: n for name, n in again.restored.items() if n} == {
        "ProductsTable": 80,
        "ProductSkusTable": 80,
        "CountersTable": 1,
    }
    assert sorted(int(i["id"]["N"]) for i in items(again.client, "ProductsTable")) == ids
    assert len(items(again.client, "ProductSkusTable")) == 80
    assert next_id(again.client, "product") == 161  # the counter goes on


def test_an_id_is_on_disk_before_it_is_answered(started, tmp_path):
    first = started(DataDir(tmp_path).hold())
    for expected in range(1, 6):
        assert next_id(first.client, "order") == expected
        saved = json.loads((tmp_path / "CountersTable.json").read_text())
        assert saved["tables"]["CountersTable"] == [
            {"name": {"S": "order"}, "value": {"N": str(expected)}}
        ]


def test_changed_tables_are_saved_within_seconds_while_running(started, tmp_path):
    first = started(DataDir(tmp_path).hold())
    product_id = create_product(first.client, "SKU-RUNNING")
    saved = threading.Event()

    def look():
        while not saved.is_set():
            text = (
                (tmp_path / SNAPSHOT_FILE).read_text()
                if (tmp_path / SNAPSHOT_FILE).exists()
                else ""
            )
            if f'"id":{{"N":"{product_id}"}}' in text:
                saved.set()
            saved.wait(0.05)

    watcher = threading.Thread(target=look, daemon=True)
    watcher.start()
    assert saved.wait(30)  # within a second or two of the write; waited for generously


@pytest.mark.parametrize(
    "content, why",
    [
        (
            b'{"format": "logistics-local-dynamodb/1", "tables": {"ProductsTable": [',
            "not valid JSON",
        ),
        (b'{"items": []}', "not a data file of this stack"),
        (b'{"format": "logistics-local-dynamodb/1", "tables": {"Gone": []}}', "'Gone'"),
        (
            b'{"format": "logistics-local-dynamodb/1", "tables": {"ProductsTable": [{"sku": '
            b'{"S": "x"}}]}}',
            "not a DynamoDB item with its key (id)",
        ),
    ],
)
def test_a_file_that_cannot_be_used_stops_the_restore_naming_it_and_stays_as_it_was(
    started, tmp_path, content, why
):
    (tmp_path / SNAPSHOT_FILE).write_bytes(content)
    with pytest.raises(DataError) as refused:
        started(DataDir(tmp_path).hold())
    assert str(tmp_path / SNAPSHOT_FILE) in str(refused.value) and why in str(refused.value)
    assert "make reset" in str(refused.value)
    assert (tmp_path / SNAPSHOT_FILE).read_bytes() == content


def test_one_directory_is_held_by_one_stack_at_a_time(tmp_path):
    held = DataDir(tmp_path).hold()
    with pytest.raises(DataError, match="in use by another local stack"):
        DataDir(tmp_path).hold()
    with pytest.raises(DataError, match="in use"):
        DataDir(tmp_path).reset()
    held.release()
    (tmp_path / SNAPSHOT_FILE).write_text("{}")
    assert DataDir(tmp_path).reset() == [tmp_path / SNAPSHOT_FILE]
    assert not (tmp_path / SNAPSHOT_FILE).exists()


def test_every_file_of_the_data_directory_is_its_owners_alone_from_its_first_byte(
    tmp_path, monkeypatch
):
    """kms.json (the webhooks' key material) was written world-readable beside the data,
    and users.json's temporary file too, before a chmod: each is 0600 as it is made."""
    import os
    import stat

    from infra.local.persistence import write_atomically

    previous = os.umask(0o022)  # a usual umask: group and others may read what is made
    seen = []
    real_replace = os.replace

    def replacing(source, target):  # the temporary as it is just before it is renamed
        seen.append(stat.S_IMODE(os.stat(source).st_mode))
        real_replace(source, target)

    path = tmp_path / "kms.json"
    (tmp_path / "kms.json.tmp").write_text("left by a crash")
    os.chmod(tmp_path / "kms.json.tmp", 0o644)
    monkeypatch.setattr(os, "replace", replacing)
    try:
        write_atomically(path, "{}")
    finally:
        os.umask(previous)
    assert seen == [0o600] and stat.S_IMODE(path.stat().st_mode) == 0o600
