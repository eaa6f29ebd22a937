"""`make backfill-tracking`: what shipments stored before tracking lack, given to them
(docs/operations.md#tracking).

Since tracking, every shipment is created with its tracking code (claimed in
TrackingCodesTable, the index the public look-up and the carriers find it by) and with
its place among the shipments whose estimate the late check has yet to look at
(`vence`, the porVencer index). A shipment stored before has neither: no code to follow
it by, and no `envio.atrasado` ever. This gives each such shipment a new random code,
claimed first (a conditional put: never one another shipment has), then set on the
shipment on the condition that it still has none (the claim is taken back if it got
one meanwhile); and, unless it is delivered, its place in the late check (on the
condition that it has none and was never marked late), so one already late is marked at
the check's next run, once. Running it twice changes nothing the second time.

Without STAGE: the local stack's tables (`make run` running); the local stack also runs
it on the data it restores at start. With STAGE=dev|prod: that deployed stack's, with
your AWS credentials (Scan and UpdateItem on ShipmentsTable, PutItem and DeleteItem on
TrackingCodesTable).
"""

import argparse
from collections import Counter

from botocore.exceptions import ClientError

from common.orders.shipment_model import DUE, DUE_SHARDS
from common.storage import shards
from infra.shard_backfill import client_and_names
from shipping.tracking import new_code

SHIPMENTS, CODES = "ShipmentsTable", "TrackingCodesTable"
TABLES = (SHIPMENTS, CODES)
DELIVERED = "ENTREGADO"


def _conditional(call) -> bool:
    """Whether a conditional write was made (False: its condition did not hold)."""
    try:
        call()
        return True
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return False


def _claimed(client, names: dict[str, str], key: dict) -> str:
    """A new code, claimed for the shipment of `key` (another drawn while one is taken)."""
    while True:
        code = new_code()
        try:
            client.put_item(
                TableName=names[CODES],
                Item={"codigoSeguimiento": {"S": code}, "envioId": key["id"]},
                ConditionExpression="attribute_not_exists(codigoSeguimiento)",
            )
            return code
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise


def _give_code(client, names: dict[str, str], key: dict) -> bool:
    code = _claimed(client, names, key)
    given = _conditional(
        lambda: client.update_item(
            TableName=names[SHIPMENTS],
            Key=key,
            UpdateExpression="SET codigoSeguimiento = :code",
            ConditionExpression="attribute_exists(id) AND attribute_not_exists(codigoSeguimiento)",
            ExpressionAttributeValues={":code": {"S": code}},
        )
    )
    if not given:  # it got one meanwhile (or is gone): the claim goes back
        client.delete_item(TableName=names[CODES], Key={"codigoSeguimiento": {"S": code}})
    return given


def _give_due(client, names: dict[str, str], key: dict) -> bool:
    due = shards.key(DUE, int(key["id"]["N"]), DUE_SHARDS)
    return _conditional(
        lambda: client.update_item(
            TableName=names[SHIPMENTS],
            Key=key,
            UpdateExpression="SET vence = :due",
            ConditionExpression="attribute_exists(id) AND attribute_not_exists(vence) "
            "AND attribute_not_exists(atrasoAvisado) AND #status <> :delivered",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={":due": {"S": due}, ":delivered": {"S": DELIVERED}},
        )
    )


def backfill(client, names: dict[str, str]) -> Counter:
    """Every shipment given what it lacks; how many got a code and a place in the check."""
    done: Counter = Counter()
    for page in client.get_paginator("scan").paginate(
        TableName=names[SHIPMENTS], ConsistentRead=True
    ):
        for item in page["Items"]:
            key = {"id": item["id"]}
            if "codigoSeguimiento" not in item and _give_code(client, names, key):
                done["codes"] += 1
            lacks_due = "vence" not in item and "atrasoAvisado" not in item
            if lacks_due and item.get("status", {}).get("S") != DELIVERED:
                done["checks"] += _give_due(client, names, key)
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", help="a samconfig.toml environment (dev, prod)")
    args = parser.parse_args()
    client, names = client_and_names(args.stage, TABLES)
    done = backfill(client, names)
    print(
        f"{names[SHIPMENTS]}: {done['codes']} shipments given a tracking code, "
        f"{done['checks']} a place in the late check"
    )


if __name__ == "__main__":
    main()
