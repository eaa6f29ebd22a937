"""`make backfill-shards`: the index keys that items written before write-sharding
lack, added (docs/capacity.md#rolling-it-out).

Since write-sharding every item carries `shard` (its place in the byShard index of whole
lists), orders and shipments `statusShard`, and the alert and outbox marks are
`<value>#<shard>`. An item written before has none of these, or the plain marks, and so
is missing from lists, alerts and the event sweep. This gives each such item what it
lacks, with one conditional UpdateItem that sets only those attributes, on the condition
that what they derive from is unchanged (a write meanwhile by the new code already gave
it them). Running it twice changes nothing the second time.

Without STAGE: the local stack's tables (`make run` running); the local stack also runs
it on the data it restores at start. With STAGE=dev|prod: that deployed stack's tables,
with your AWS credentials (Scan and UpdateItem on them).
"""

import argparse
from collections import Counter

from botocore.exceptions import ClientError

from common.orders.model import PENDING, PENDING_SHARDS
from common.orders.model import STATUS_SHARDS as ORDER_STATUS_SHARDS
from common.storage import shards
from common.storage.tables import LIST_SHARDS
from inventory.model import ALERT_SHARDS, IN_ALERT
from shipping.model import STATUS_SHARDS as SHIPMENT_STATUS_SHARDS

# logical id: (shards of its status, {sparse mark: (its plain value, its shards)})
TABLES = {
    "ProductsTable": (None, {"enAlerta": (IN_ALERT, ALERT_SHARDS)}),
    "OrdersTable": (ORDER_STATUS_SHARDS, {"eventoPendiente": (PENDING, PENDING_SHARDS)}),
    "ShipmentsTable": (SHIPMENT_STATUS_SHARDS, {}),
}


def update_of(logical_id: str, item: dict) -> dict | None:
    """The UpdateItem parameters (but the table's name) that give a stored item (DynamoDB
    JSON) the keys it lacks; None when it lacks none."""
    status_shards, marks = TABLES[logical_id]
    ident = int(item["id"]["N"])
    sets, conditions, names, values = [], [], {}, {}
    if "shard" not in item:
        sets.append("#shard = :shard")
        conditions.append("attribute_not_exists(#shard)")
        names["#shard"] = "shard"
        values[":shard"] = {"N": str(shards.shard_of(ident, LIST_SHARDS))}
    if status_shards is not None and "statusShard" not in item and "status" in item:
        status = item["status"]["S"]
        sets.append("statusShard = :statusShard")
        conditions.append("attribute_not_exists(statusShard) AND #status = :status")
        names["#status"] = "status"
        values[":statusShard"] = {"S": shards.key(status, ident, status_shards)}
        values[":status"] = {"S": status}
    for attribute, (plain, count) in marks.items():
        if item.get(attribute) == {"S": plain}:
            sets.append(f"{attribute} = :{attribute}")
            conditions.append(f"{attribute} = :{attribute}Plain")
            values[f":{attribute}"] = {"S": shards.key(plain, ident, count)}
            values[f":{attribute}Plain"] = {"S": plain}
    if not sets:
        return None
    update = {
        "Key": {"id": item["id"]},
        "UpdateExpression": "SET " + ", ".join(sets),
        "ConditionExpression": " AND ".join(conditions),
        "ExpressionAttributeValues": values,
    }
    if names:
        update["ExpressionAttributeNames"] = names
    return update


def backfill(client, table_names: dict[str, str]) -> Counter:
    """Every item of the tables (logical id: name) given what it lacks; returns how many
    items of each table were updated."""
    updated: Counter = Counter()
    for logical_id, name in table_names.items():
        for page in client.get_paginator("scan").paginate(TableName=name, ConsistentRead=True):
            for item in page["Items"]:
                update = update_of(logical_id, item)
                if update is None:
                    continue
                try:
                    client.update_item(TableName=name, **update)
                    updated[logical_id] += 1
                except ClientError as exc:  # rewritten meanwhile, in the new form
                    if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                        raise
    return updated


def client_and_names(stage: str | None, wanted) -> tuple:
    """A DynamoDB client, and the names of the tables `wanted` (logical ids): the running
    local stack's without a stage; with one, that deployed stack's (your credentials)."""
    import boto3

    if stage is None:
        from infra.local import LOCAL_AWS_ENV
        from infra.local.running import url_of

        client = boto3.client(
            "dynamodb",
            endpoint_url=url_of("make backfill-shards", "DYNAMODB_PORT"),
            aws_access_key_id="local",
            aws_secret_access_key="local",
            region_name=LOCAL_AWS_ENV["AWS_DEFAULT_REGION"],
        )
        return client, {logical_id: logical_id for logical_id in wanted}
    from infra.tokens import stage_stack

    stack, region = stage_stack(stage)
    resources = boto3.client("cloudformation", region_name=region).describe_stack_resources(
        StackName=stack
    )["StackResources"]
    names = {
        r["LogicalResourceId"]: r["PhysicalResourceId"]
        for r in resources
        if r["LogicalResourceId"] in wanted
    }
    return boto3.client("dynamodb", region_name=region), names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", help="a samconfig.toml environment (dev, prod)")
    args = parser.parse_args()
    client, names = client_and_names(args.stage, TABLES)
    updated = backfill(client, names)
    for logical_id in names:
        print(f"{logical_id}: {updated[logical_id]} items given their shard keys")


if __name__ == "__main__":
    main()
