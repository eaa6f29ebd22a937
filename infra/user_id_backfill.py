"""`make backfill-user-ids`: every userId that data written before claims carries, claimed
(common.identity.user_ids; docs/identity.md#userids), so that no new account is given it.

Orders and shipments written before claims (an earlier version's, `make seed`'s of
then, an import) carry userIds nothing claimed; so do the accounts of the user pool made
before. This claims each one: an order's or shipment's as used, an account's as held by
an active account, which the claim names (its username in the pool: how the users
function finds the account of a userId). Each claim is one UpdateItem that keeps what
a claim already says (who used the id first), so running it twice, or while the platform
runs, changes nothing the second time.

Without STAGE: the local stack's tables and pool (`make run` running); the local stack
also runs it on the data it restores at start. With STAGE=dev|prod: that deployed
stack's, with your AWS credentials (Scan on OrdersTable and ShipmentsTable,
cognito-idp:ListUsers on the pool, UpdateItem on UserIdsTable). Run it once after
deploying the version that brings claims, before customers register.
"""

import argparse
from collections import Counter
from collections.abc import Iterator
from typing import Any

from common.identity.user_ids import TABLE, UserIds

# The tables whose items carry a userId (logical ids).
TABLES = ("OrdersTable", "ShipmentsTable")
USER_ID_ATTRIBUTE = "custom:userId"  # the pool's (functions/auth/pool.py)


def carried(dynamodb: Any, table: str) -> Iterator[int]:
    """The userId of each item of `table` that has one (a shipment of an order unknown
    when it was made has none)."""
    pages = dynamodb.get_paginator("scan").paginate(
        TableName=table,
        ProjectionExpression="userId",
        ConsistentRead=True,
    )
    for page in pages:
        for item in page["Items"]:
            if "userId" in item:
                yield int(item["userId"]["N"])


def accounts(cognito: Any, pool_id: str) -> Iterator[tuple[int, str, str | None]]:
    """The userId of each account of the pool that has one (operators may not), the
    account's username and its email."""
    for page in cognito.get_paginator("list_users").paginate(UserPoolId=pool_id):
        for user in page["Users"]:
            attributes = {a["Name"]: a["Value"] for a in user.get("Attributes", [])}
            if attributes.get(USER_ID_ATTRIBUTE, "").isdigit():
                yield (
                    int(attributes[USER_ID_ATTRIBUTE]),
                    str(user["Username"]),
                    attributes.get("email"),
                )


def backfill(
    dynamodb: Any, names: dict[str, str], cognito: Any = None, pool_id: str | None = None
) -> Counter:
    """Claim every userId the tables (logical id: name, UserIdsTable's among them) and the
    pool carry; returns how many distinct ids each source gave."""
    ids = UserIds(lambda: dynamodb, names[TABLE])
    claimed: Counter = Counter()
    for logical_id in TABLES:
        for user_id in set(carried(dynamodb, names[logical_id])):
            ids.used(user_id)
            claimed[logical_id] += 1
    if cognito is not None and pool_id is not None:
        for user_id, username, email in set(accounts(cognito, pool_id)):
            ids.account_exists(user_id, username, email)
            claimed["accounts"] += 1
    return claimed


def _local() -> tuple[Any, dict[str, str], Any, str]:
    import boto3

    from infra.local import LOCAL_AWS_ENV
    from infra.local.running import url_of
    from infra.local.sign_in import find_pool

    url = url_of("make backfill-user-ids", "DYNAMODB_PORT")
    region = LOCAL_AWS_ENV["AWS_DEFAULT_REGION"]
    credentials = {
        "endpoint_url": url,
        "region_name": region,
        "aws_access_key_id": LOCAL_AWS_ENV["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": LOCAL_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
    }
    names = {logical_id: logical_id for logical_id in (*TABLES, TABLE)}
    cognito = boto3.client("cognito-idp", **credentials)
    return boto3.client("dynamodb", **credentials), names, cognito, find_pool(url, region).id


def _stage(stage: str) -> tuple[Any, dict[str, str], Any, str | None]:
    import boto3

    from infra.tokens import stage_stack

    stack, region = stage_stack(stage)
    formation = boto3.client("cloudformation", region_name=region)
    resources = formation.describe_stack_resources(StackName=stack)["StackResources"]
    found = {r["LogicalResourceId"]: r["PhysicalResourceId"] for r in resources}
    names = {logical_id: found[logical_id] for logical_id in (*TABLES, TABLE)}
    return (
        boto3.client("dynamodb", region_name=region),
        names,
        boto3.client("cognito-idp", region_name=region),
        found.get("UserPool"),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", help="a samconfig.toml environment (dev, prod)")
    args = parser.parse_args()
    dynamodb, names, cognito, pool_id = _stage(args.stage) if args.stage else _local()
    claimed = backfill(dynamodb, names, cognito, pool_id)
    for source in (*TABLES, "accounts"):
        print(f"{source}: {claimed[source]} userIds claimed")


if __name__ == "__main__":
    main()
