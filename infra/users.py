"""`make user EMAIL=... ROLE=operator|customer [STAGE=...] [PASSWORD=...] [USER_ID=...]`: an
account in the user pool, made by an operator (operators are never made by registering).

Without STAGE, in the local stack's pool (the emulator of the running `make run` or `make
emulators`); with STAGE=dev|prod, in that deployed stack's pool, with your AWS
credentials (cognito-idp:Admin* on it, dynamodb:UpdateItem on its counters and
PutItem/UpdateItem on its userIds). A customer gets a userId no order, shipment or
account has used (common.identity.user_ids: as registering gives one), or USER_ID: a number
orders or shipments carry is theirs to take (the customer of orders placed before they
had an account), one an account has is refused. An operator joins the group
`operators`. Without PASSWORD one is generated and printed, once.

An email that already has an account is refused, whatever its role, and nothing changes:
an account someone registered never becomes an operator (registering proves nothing
about the email), and a second run never changes the first's account.
"""

import argparse
import secrets
import sys
from dataclasses import dataclass
from typing import Any

from auth.rules import PASSWORD_POLICY, weak_password_message
from common.identity.callers import CUSTOMER, OPERATOR, ROLES
from common.identity.user_ids import TABLE as USER_IDS_TABLE
from common.identity.user_ids import UserIdErased, UserIds, UserIdTaken
from common.platform.ids import possible_id
from common.platform.validation import normal_email
from infra.local.running import url_of
from infra.local.sign_in import find_pool
from infra.tokens import stage_stack

OPERATORS_GROUP = "operators"
USERS_COUNTER = "users"  # functions/auth/repository.py's


@dataclass(frozen=True)
class Pool:
    """A user pool, and the tables its customers' userIds come from and are claimed in."""

    cognito: Any
    pool_id: str
    dynamodb: Any
    counters_table: str
    user_ids_table: str
    where: str  # for people: "the local user pool", "logistics-dev's user pool"

    def user_ids(self) -> UserIds:
        return UserIds(lambda: self.dynamodb, self.user_ids_table)


class Refused(Exception):
    """What was asked would take over an account or an id: nothing was changed; str()
    says why, for the operator."""


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


def _reserve(pool: Pool) -> int:
    """The users counter's next id (one at a time: `make user` is not a crowd)."""
    answer = pool.dynamodb.update_item(
        TableName=pool.counters_table,
        Key={"name": {"S": USERS_COUNTER}},
        UpdateExpression="ADD #v :one",
        ExpressionAttributeNames={"#v": "value"},
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["value"]["N"])


def _claim(pool: Pool, email: str, wanted: int | None) -> int:
    """The customer's userId, claimed for the account about to be made."""
    ids = pool.user_ids()
    if wanted is None:
        return ids.new_account(lambda: _reserve(pool))
    try:
        ids.for_account(wanted)
    except UserIdErased:
        raise Refused(
            f"make user: userId {wanted} was a person's whose data was erased, in "
            f"{pool.where}: an erased userId is never given again. {email} was not "
            "created, nothing changed; leave USER_ID out for a new one"
        ) from None
    except UserIdTaken:
        raise Refused(
            f"make user: userId {wanted} already belongs to an account (or one being made) "
            f"in {pool.where}: {email} was not created, nothing changed. Each userId is one "
            "account's; leave USER_ID out for a new one"
        ) from None
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


def existing(pool: Pool, email: str) -> Account | None:
    """The account of `email` (normalised) as the pool has it, or None."""
    return _existing(pool, normal_email(email))


def make_user(
    pool: Pool, email: str, role: str, password: str | None = None, user_id: int | None = None
) -> Account:
    """The account, created with its password; Refused, having changed nothing, when the
    email has an account or USER_ID is another account's."""
    email = normal_email(email)
    found = _existing(pool, email)
    if found is not None:
        who = found.role + (f", userId {found.user_id}" if found.user_id else "")
        raise Refused(
            f"make user: {email} already has an account in {pool.where} ({who}): nothing "
            "changed. An account is never made into another (an operator, say): if it is "
            "not who it should be, delete it first (docs/identity.md#making-users)"
        )
    password = password or generated_password()
    if not PASSWORD_POLICY.allows(password):
        raise Refused(f"make user: PASSWORD {weak_password_message()}")
    if role == OPERATOR and user_id is not None:
        raise Refused("make user: USER_ID is a customer's (operators see every order)")
    if role == CUSTOMER:
        user_id = _claim(pool, email, user_id)
    try:
        username = _create(pool, email, role, password, user_id)
    except Exception:
        if user_id is not None:  # the id stays claimed, held by no account
            pool.user_ids().account_not_created(user_id)
        raise
    if user_id is not None:
        pool.user_ids().account_created(user_id, username, email)
    return Account(email, role, user_id, password, True)


def _create(pool: Pool, email: str, role: str, password: str, user_id: int | None) -> str:
    """The account made (its username in the pool: an id the pool generates)."""
    attributes = [{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}]
    if user_id is not None:
        attributes.append({"Name": "custom:userId", "Value": str(user_id)})
    try:
        made = pool.cognito.admin_create_user(
            UserPoolId=pool.pool_id,
            Username=email,
            UserAttributes=attributes,
            MessageAction="SUPPRESS",
        )
    except pool.cognito.exceptions.UsernameExistsException:
        raise Refused(
            f"make user: {email} was registered meanwhile in {pool.where}: nothing changed"
        ) from None
    pool.cognito.admin_set_user_password(
        UserPoolId=pool.pool_id, Username=email, Password=password, Permanent=True
    )
    if role == OPERATOR:
        pool.cognito.admin_add_user_to_group(
            UserPoolId=pool.pool_id, Username=email, GroupName=OPERATORS_GROUP
        )
    return str(made["User"]["Username"])


def local_pool() -> Pool:
    import boto3

    from infra.local import LOCAL_AWS_ENV

    url = url_of("make user", "DYNAMODB_PORT")
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
        USER_IDS_TABLE,
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

    def table(logical_id: str) -> str:
        found = formation.describe_stack_resource(StackName=stack, LogicalResourceId=logical_id)
        return found["StackResourceDetail"]["PhysicalResourceId"]

    return Pool(
        boto3.client("cognito-idp", region_name=region),
        outputs["UserPoolId"],
        boto3.client("dynamodb", region_name=region),
        table("CountersTable"),
        table(USER_IDS_TABLE),
        f"{stack}'s user pool",
    )


def described(account: Account, where: str) -> str:
    who = f"{account.role}" + (f", userId {account.user_id}" if account.user_id else "")
    said = f"; password: {account.password}" if account.password else ""
    return f"Created {account.email} in {where} ({who}){said}"


def _user_id(raw: str) -> int:
    if not raw.isdigit() or not possible_id(int(raw)):
        raise argparse.ArgumentTypeError(f"USER_ID={raw!r}: must be a positive integer")
    return int(raw)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--email", required=True)
    parser.add_argument("--role", choices=ROLES, default=CUSTOMER)
    parser.add_argument("--stage", help="a samconfig.toml environment: dev, prod")
    parser.add_argument("--password")
    parser.add_argument("--user-id", type=_user_id)
    args = parser.parse_args(argv)
    if not args.email.strip():
        raise SystemExit("make user: EMAIL=... is required")
    pool = stage_pool(args.stage) if args.stage else local_pool()
    try:
        account = make_user(pool, args.email, args.role, args.password, args.user_id)
    except Refused as refused:
        raise SystemExit(str(refused)) from None
    print(described(account, pool.where))


if __name__ == "__main__":
    main(sys.argv[1:])
