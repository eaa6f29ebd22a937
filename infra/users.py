"""`make user EMAIL=... ROLE=operator|customer [STAGE=...] [PASSWORD=...] [USER_ID=...]`: an
account in the user pool, made by an operator (operators are never made by registering).

Without STAGE, in the local stack's pool (the emulator on DYNAMODB_PORT: `make run` or
`make emulators` must be running); with STAGE=dev|prod, in that deployed stack's pool,
with your AWS credentials (cognito-idp:Admin* on it, dynamodb:UpdateItem on its counters).
A customer gets a new userId from the platform's counter (as registering gives one), or
USER_ID, which the counter is then moved past; an operator joins the group `operators`.
Without PASSWORD one is generated and printed, once. An account that exists is left as
it is (a second run changes nothing)."""

import argparse
import contextlib
import secrets
import sys
from dataclasses import dataclass
from typing import Any

from auth.rules import PASSWORD_POLICY, weak_password_message
from common.callers import CUSTOMER, OPERATOR, ROLES
from common.validation import normal_email
from infra.local.settings import LocalSettings
from infra.local.sign_in import find_pool
from infra.tokens import stage_stack

OPERATORS_GROUP = "operators"
USERS_COUNTER = "users"  # functions/auth/repository.py's


@dataclass(frozen=True)
class Pool:
    """A user pool and the counters table its customers' userIds come from."""

    cognito: Any
    pool_id: str
    dynamodb: Any
    counters_table: str
    where: str  # for people: "the local user pool", "logistics-dev's user pool"


@dataclass(frozen=True)
class Account:
    email: str
    role: str
    user_id: int | None
    password: str | None  # only when this run set it
    created: bool


def generated_password() -> str:
    """A password the pool's policy takes: random, with each kind it requires."""
    return secrets.token_urlsafe(15) + "Aa7"


def _next_user_id(pool: Pool, wanted: int | None) -> int:
    table, key = pool.counters_table, {"name": {"S": USERS_COUNTER}}
    if wanted is None:
        answer = pool.dynamodb.update_item(
            TableName=table,
            Key=key,
            UpdateExpression="ADD #v :one",
            ExpressionAttributeNames={"#v": "value"},
            ExpressionAttributeValues={":one": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )
        return int(answer["Attributes"]["value"]["N"])
    # Past the counter: a customer registering later never gets this userId too.
    with contextlib.suppress(pool.dynamodb.exceptions.ConditionalCheckFailedException):
        pool.dynamodb.update_item(
            TableName=table,
            Key=key,
            UpdateExpression="SET #v = :wanted",
            ConditionExpression="attribute_not_exists(#v) OR #v < :wanted",
            ExpressionAttributeNames={"#v": "value"},
            ExpressionAttributeValues={":wanted": {"N": str(wanted)}},
        )  # refused: the counter is past it already
    return wanted


def _existing(pool: Pool, email: str) -> Account | None:
    try:
        user = pool.cognito.admin_get_user(UserPoolId=pool.pool_id, Username=email)
    except pool.cognito.exceptions.UserNotFoundException:
        return None
    attributes = {a["Name"]: a["Value"] for a in user.get("UserAttributes", [])}
    groups = pool.cognito.admin_list_groups_for_user(UserPoolId=pool.pool_id, Username=email)
    operator = any(g["GroupName"] == OPERATORS_GROUP for g in groups.get("Groups", []))
    user_id = attributes.get("custom:userId")
    return Account(
        email, OPERATOR if operator else CUSTOMER, int(user_id) if user_id else None, None, False
    )


def make_user(
    pool: Pool, email: str, role: str, password: str | None = None, user_id: int | None = None
) -> Account:
    """The account, created (with its password) or as it already was."""
    email = normal_email(email)
    found = _existing(pool, email)
    if found is not None:
        return found
    password = password or generated_password()
    if not PASSWORD_POLICY.allows(password):
        raise SystemExit(f"make user: PASSWORD {weak_password_message()}")
    attributes = [{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}]
    if role == CUSTOMER:
        user_id = _next_user_id(pool, user_id)
        attributes.append({"Name": "custom:userId", "Value": str(user_id)})
    elif user_id is not None:
        raise SystemExit("make user: USER_ID is a customer's (operators see every order)")
    pool.cognito.admin_create_user(
        UserPoolId=pool.pool_id, Username=email, UserAttributes=attributes, MessageAction="SUPPRESS"
    )
    pool.cognito.admin_set_user_password(
        UserPoolId=pool.pool_id, Username=email, Password=password, Permanent=True
    )
    if role == OPERATOR:
        pool.cognito.admin_add_user_to_group(
            UserPoolId=pool.pool_id, Username=email, GroupName=OPERATORS_GROUP
        )
    return Account(email, role, user_id, password, True)


def local_pool() -> Pool:
    import boto3

    from infra.local import LOCAL_AWS_ENV

    local = LocalSettings.from_env()
    url = f"http://127.0.0.1:{local.dynamodb_port}"
    region = LOCAL_AWS_ENV["AWS_DEFAULT_REGION"]
    credentials = {
        "aws_access_key_id": LOCAL_AWS_ENV["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": LOCAL_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
        "region_name": region,
        "endpoint_url": url,
    }
    try:
        found = find_pool(url, region)
    except Exception as exc:  # noqa: BLE001 - nothing there, or not ours: said in one line
        raise SystemExit(
            f"make user: no local user pool at {url} ({type(exc).__name__}). "
            "Is the local stack running (make run)?"
        ) from None
    return Pool(
        boto3.client("cognito-idp", **credentials),
        found.id,
        boto3.client("dynamodb", **credentials),
        "CountersTable",
        "the local user pool",
    )


def stage_pool(stage: str) -> Pool:
    import boto3

    stack, region = stage_stack(stage)
    formation = boto3.client("cloudformation", region_name=region)
    outputs = {
        o["OutputKey"]: o["OutputValue"]
        for o in formation.describe_stacks(StackName=stack)["Stacks"][0].get("Outputs", [])
    }
    if "UserPoolId" not in outputs:
        raise SystemExit(
            f"make user: {stack} has no user pool (deployed with CreateUserPool=false)"
        )
    counters = formation.describe_stack_resource(StackName=stack, LogicalResourceId="CountersTable")
    return Pool(
        boto3.client("cognito-idp", region_name=region),
        outputs["UserPoolId"],
        boto3.client("dynamodb", region_name=region),
        counters["StackResourceDetail"]["PhysicalResourceId"],
        f"{stack}'s user pool",
    )


def described(account: Account, where: str) -> str:
    who = f"{account.role}" + (f", userId {account.user_id}" if account.user_id else "")
    if not account.created:
        return f"{account.email} already exists in {where} ({who}): nothing changed."
    said = f"; password: {account.password}" if account.password else ""
    return f"Created {account.email} in {where} ({who}){said}"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--email", required=True)
    parser.add_argument("--role", choices=ROLES, default=CUSTOMER)
    parser.add_argument("--stage", help="a samconfig.toml environment: dev, prod")
    parser.add_argument("--password")
    parser.add_argument("--user-id", type=int)
    args = parser.parse_args(argv)
    if not args.email.strip():
        raise SystemExit("make user: EMAIL=... is required")
    pool = stage_pool(args.stage) if args.stage else local_pool()
    account = make_user(pool, args.email, args.role, args.password, args.user_id)
    print(described(account, pool.where))


if __name__ == "__main__":
    main(sys.argv[1:])
