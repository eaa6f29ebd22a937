"""`make encrypt-webhook-secrets`: the webhook endpoints' secrets stored in plain text
before secrets were encrypted, encrypted (docs/operations.md#webhooks).

Since then every secret is stored encrypted with the stack's KMS key for its endpoint
(layers/common/common/webhooks/vault.py), and the functions read both forms: an endpoint written
before keeps working, and its secrets are encrypted by its next rotation, or here. Each
endpoint with a plain secret (its current one, or one a rotation replaced) gets them all
encrypted in one conditional UpdateItem, on the condition that its current secret is
still the one read (a rotation meanwhile rewrote them, encrypted). Running it twice
changes nothing the second time; no secret is printed.

Without STAGE: the local stack's table (`make run` running; the local stack also runs it
on the data it restores at start). With STAGE=dev|prod: that deployed stack's, with your
AWS credentials (Scan and UpdateItem on its WebhooksTable, kms:Encrypt on its
WebhookSecretsKey).
"""

import argparse
from collections.abc import Callable

from botocore.exceptions import ClientError

from common.platform.settings import Cloud, Webhooks
from common.webhooks.vault import Vault, sealed

TABLE, KEY = "WebhooksTable", "WebhookSecretsKey"
# (webhook id, a secret in plain text) -> the secret as stored, encrypted.
Seal = Callable[[int, str], str]


def update_of(item: dict, seal: Seal) -> dict | None:
    """The UpdateItem parameters (but the table's name) that store an endpoint's item
    (DynamoDB JSON) with every secret encrypted; None when none is plain."""
    ident = int(item["id"]["N"])
    current = item["secreto"]["S"]
    sets, values = [], {":before": {"S": current}}
    if not sealed(current):
        sets.append("secreto = :secreto")
        values[":secreto"] = {"S": seal(ident, current)}
    previous = item.get("secretoAnterior", {}).get("S")
    if previous and not sealed(previous):
        sets.append("secretoAnterior = :anterior")
        values[":anterior"] = {"S": seal(ident, previous)}
    listed = item.get("secretosAnteriores", {}).get("L") or []
    if any(not sealed(entry["M"]["secreto"]["S"]) for entry in listed):
        sets.append("secretosAnteriores = :anteriores")
        values[":anteriores"] = {
            "L": [
                {"M": {**entry["M"], "secreto": {"S": seal(ident, entry["M"]["secreto"]["S"])}}}
                for entry in listed
            ]
        }
    if not sets:
        return None
    return {
        "Key": {"id": item["id"]},
        "UpdateExpression": "SET " + ", ".join(sets),
        # Any rotation sets a new current secret: this one still there, nothing moved.
        "ConditionExpression": "secreto = :before",
        "ExpressionAttributeValues": values,
    }


def encrypt_all(dynamodb, table_name: str, seal: Seal) -> int:
    """Every endpoint of the table stored with its secrets encrypted; how many were
    rewritten."""
    rewritten = 0
    for page in dynamodb.get_paginator("scan").paginate(TableName=table_name, ConsistentRead=True):
        for item in page["Items"]:
            update = update_of(item, seal)
            if update is None:
                continue
            try:
                dynamodb.update_item(TableName=table_name, **update)
                rewritten += 1
            except ClientError as exc:  # rotated meanwhile: stored encrypted by the rotation
                if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                    raise
    return rewritten


def _clients(stage: str | None):
    """(DynamoDB client, the table's name, the vault) of the local stack or a stage's."""
    import boto3

    if stage is None:
        from infra.local import LOCAL_AWS_ENV
        from infra.local.settings import LocalSettings

        local = LocalSettings.from_env()
        made = {
            "endpoint_url": f"http://127.0.0.1:{local.dynamodb_port}",
            "aws_access_key_id": "local",
            "aws_secret_access_key": "local",
            "region_name": LOCAL_AWS_ENV["AWS_DEFAULT_REGION"],
        }
        vault = Vault(Cloud(), Webhooks(), client=boto3.client("kms", **made))
        return boto3.client("dynamodb", **made), TABLE, vault
    from infra.tokens import stage_stack

    stack, region = stage_stack(stage)
    resources = boto3.client("cloudformation", region_name=region).describe_stack_resources(
        StackName=stack
    )["StackResources"]
    named = {r["LogicalResourceId"]: r["PhysicalResourceId"] for r in resources}
    key = Webhooks(webhook_secrets_key=named[KEY])
    vault = Vault(Cloud(region=region), key, client=boto3.client("kms", region_name=region))
    return boto3.client("dynamodb", region_name=region), named[TABLE], vault


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", help="a samconfig.toml environment (dev, prod)")
    args = parser.parse_args()
    dynamodb, table, vault = _clients(args.stage)
    rewritten = encrypt_all(dynamodb, table, vault.seal)
    print(f"{table}: {rewritten} endpoints' secrets encrypted")


if __name__ == "__main__":
    main()
