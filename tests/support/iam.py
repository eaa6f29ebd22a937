"""What each function's role in infra/template.yaml allows, for the integration tests to
check every AWS call a function makes against it: the emulator, like moto, enforces no
IAM, and a call the role lacks fails only on AWS (a 500, or a warm-up that quietly
gives up). Covers what the template uses: inline statements on tables, their indexes
and DynamoDB's LeadingKeys condition, and SAM's secret-reading and Lambda-invoking
policy templates. Locally every table, function and secret is named by its logical id.
"""

import re
from dataclasses import dataclass
from functools import cache

from infra import template

# SAM's policy templates the template uses: (the IAM actions, the parameter naming the
# resource) as SAM expands them.
POLICY_TEMPLATES = {
    "AWSSecretsManagerGetSecretValuePolicy": (("secretsmanager:GetSecretValue",), "SecretArn"),
    "LambdaInvokePolicy": (("lambda:InvokeFunction",), "FunctionName"),
}
# What each item of a transaction is checked as (DynamoDB authorizes the items' own actions).
_TRANSACT_ACTIONS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}
# The calls other than DynamoDB's: (the IAM action, the parameter naming the resource).
_CALL_ACTIONS = {
    ("lambda", "Invoke"): ("lambda:InvokeFunction", "FunctionName"),
    ("secretsmanager", "GetSecretValue"): ("secretsmanager:GetSecretValue", "SecretId"),
    ("cognito-idp", "AdminCreateUser"): ("cognito-idp:AdminCreateUser", "UserPoolId"),
    ("cognito-idp", "AdminSetUserPassword"): ("cognito-idp:AdminSetUserPassword", "UserPoolId"),
    ("cognito-idp", "AdminDeleteUser"): ("cognito-idp:AdminDeleteUser", "UserPoolId"),
    ("cognito-idp", "AdminInitiateAuth"): ("cognito-idp:AdminInitiateAuth", "UserPoolId"),
    ("cognito-idp", "AdminGetUser"): ("cognito-idp:AdminGetUser", "UserPoolId"),
    ("cognito-idp", "AdminDisableUser"): ("cognito-idp:AdminDisableUser", "UserPoolId"),
    ("cognito-idp", "AdminUserGlobalSignOut"): (
        "cognito-idp:AdminUserGlobalSignOut",
        "UserPoolId",
    ),
    ("cognito-idp", "AdminUpdateUserAttributes"): (
        "cognito-idp:AdminUpdateUserAttributes",
        "UserPoolId",
    ),
    # A batch is authorized as its single action (IAM has no SendMessageBatch).
    ("sqs", "SendMessage"): ("sqs:SendMessage", "QueueUrl"),
    ("sqs", "SendMessageBatch"): ("sqs:SendMessage", "QueueUrl"),
    ("sqs", "ChangeMessageVisibility"): ("sqs:ChangeMessageVisibility", "QueueUrl"),
    ("kms", "Encrypt"): ("kms:Encrypt", "KeyId"),
    ("kms", "Decrypt"): ("kms:Decrypt", "KeyId"),
}
# Calls IAM does not authorize: an app client's own sign-in is unsigned (the platform
# makes none: its sign-in is the administrator's flow).
_UNSIGNED = {("cognito-idp", "InitiateAuth")}


@dataclass(frozen=True)
class Access:
    """One thing a call asks IAM for: an action on a resource (a logical id, or
    "Table/index/name"), with the partition keys it touches (DynamoDB's LeadingKeys).
    None for a Query: its key is inside an expression, not read here, so a grant with
    a LeadingKeys condition is taken not to cover it (stricter than AWS, which would
    compare the key condition's partition key; no such grant includes Query)."""

    action: str
    resource: str
    leading_keys: frozenset[str] | None = None
    # KMS: the request's encryption context (its kms:EncryptionContext:<key> values).
    context: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class _Grant:
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: dict


def accesses(service: str, operation: str, params: dict) -> list[Access]:
    """What IAM checks for one call."""
    if (service, operation) in _UNSIGNED:
        return []
    if service != "dynamodb":
        action, parameter = _CALL_ACTIONS[service, operation]
        named = params[parameter]
        if service == "sqs":  # a queue's URL, or locally its name: the name is its last part
            named = named.rsplit("/", 1)[-1]
        if service == "kms":  # locally a key is named by its alias: alias/<logical id>
            context = tuple(sorted((params.get("EncryptionContext") or {}).items()))
            return [Access(action, named.removeprefix("alias/"), context=context)]
        return [Access(action, named)]
    if operation == "BatchGetItem":
        return [
            Access("dynamodb:BatchGetItem", table, _keys(table, request["Keys"]))
            for table, request in params["RequestItems"].items()
        ]
    if operation == "TransactWriteItems":
        found = []
        for item in params["TransactItems"]:
            ((kind, request),) = item.items()
            key = request.get("Key") or request["Item"]
            found.append(
                Access(
                    f"dynamodb:{_TRANSACT_ACTIONS[kind]}",
                    request["TableName"],
                    _keys(request["TableName"], [key]),
                )
            )
        return found
    table = params["TableName"]
    if operation == "Query":
        index = params.get("IndexName")
        return [Access("dynamodb:Query", f"{table}/index/{index}" if index else table)]
    key = params.get("Key") or params["Item"]
    return [Access(f"dynamodb:{operation}", table, _keys(table, [key]))]


def allows(function: str, access: Access) -> bool:
    """Whether the function's role allows `access` (no statement of ours denies)."""
    return any(_matches(grant, access) for grant in _grants(function))


@cache
def _hash_keys() -> dict[str, str]:
    return {
        name: next(
            key["AttributeName"]
            for key in table["Properties"]["KeySchema"]
            if key["KeyType"] == "HASH"
        )
        for name, table in template.resources("AWS::DynamoDB::Table").items()
    }


def _keys(table: str, items: list[dict]) -> frozenset[str]:
    attribute = _hash_keys()[table]
    return frozenset(next(iter(item[attribute].values())) for item in items)


@cache
def _grants(function: str) -> tuple[_Grant, ...]:
    grants = []
    policies = template.resources("AWS::Serverless::Function")[function]["Properties"]
    for policy in policies.get("Policies", []):
        ((kind, body),) = policy.items()
        if kind == "Statement":
            for statement in body:
                assert statement["Effect"] == "Allow", statement  # no Deny is modelled
                grants.append(
                    _Grant(
                        _listed(statement["Action"]),
                        tuple(map(_resource, _listed(statement["Resource"]))),
                        statement.get("Condition", {}),
                    )
                )
        else:
            actions, parameter = POLICY_TEMPLATES[kind]
            grants.append(_Grant(actions, (_resource(body[parameter]),), {}))
    return tuple(grants)


def _listed(value) -> tuple:
    return tuple(value) if isinstance(value, list) else (value,)


def _resource(value) -> str:
    """A logical id (or "Table/index/name", "Table/stream") for !Ref X, !GetAtt X.Arn,
    !GetAtt X.StreamArn, !Sub "${X.Arn}/..."; "*" as it is."""
    if value == "*":
        return value
    if "Fn::If" in value:  # a stack with the condition: the resource it names then
        return _resource(value["Fn::If"][1])
    if "Ref" in value:
        return value["Ref"]
    if "Fn::GetAtt" in value:
        name, attribute = value["Fn::GetAtt"]
        assert attribute in ("Arn", "StreamArn"), value
        return name if attribute == "Arn" else f"{name}/stream"
    reference = re.fullmatch(r"\$\{(\w+)\.Arn\}(/.*)?", value["Fn::Sub"])
    assert reference, value
    return reference[1] + (reference[2] or "")


def _matches(grant: _Grant, access: Access) -> bool:
    if not any(_like(pattern, access.action, case=False) for pattern in grant.actions):
        return False
    if not any(
        _like(pattern, access.resource)
        for resource in grant.resources
        for pattern in _names(resource)
    ):
        return False
    for operator, tests in grant.conditions.items():
        for key, values in tests.items():
            if key.startswith("kms:EncryptionContext:"):
                if not _context_holds(operator, key, values, access):
                    return False
                continue
            assert key == "dynamodb:LeadingKeys", key  # the only other condition it uses
            if access.leading_keys is None:
                return False
            compare = _OPERATORS[operator]
            if not all(
                any(compare(pattern, key) for pattern in _listed(values))
                for key in access.leading_keys
            ):
                return False
    return True


def _context_holds(operator: str, key: str, value, access: Access) -> bool:
    """A condition on one key of a KMS request's encryption context: the template uses
    `Null: false` (the request names it)."""
    assert operator == "Null" and value == "false", (operator, key, value)
    return key.removeprefix("kms:EncryptionContext:") in dict(access.context)


@cache
def _names(resource: str) -> tuple[str, ...]:
    """What a call may name a resource by: its logical id (local names), and for a
    secret or a function the name a stack gives it, bare or as an ARN: the secret's
    Name (in any stack) and its ARN's 6-character suffix; CloudFormation's
    "<stack>-<logical id>-<suffix>" for a function."""
    declared = template.load()["Resources"].get(resource, {})
    if declared.get("Type") == "AWS::SecretsManager::Secret":
        name = declared["Properties"]["Name"]["Fn::Sub"].replace("${AWS::StackName}", "*")
        return resource, name, f"arn:*:secretsmanager:*:secret:{name}-??????"
    if declared.get("Type") == "AWS::Serverless::Function":
        name = f"*-{resource}-*"
        return resource, name, f"arn:*:lambda:*:function:{name}"
    if declared.get("Type") == "AWS::Cognito::UserPool":
        return resource, "*_*"  # a pool's id, "<region>_<id>": the template has one pool
    return (resource,)


def _like(pattern: str, value: str, case: bool = True) -> bool:
    """IAM's wildcards: * any run of characters, ? any one."""
    expression = re.escape(pattern).replace(r"\*", ".*").replace(r"\?", ".")
    return re.fullmatch(expression, value, 0 if case else re.IGNORECASE) is not None


_OPERATORS = {
    "ForAllValues:StringEquals": lambda pattern, key: pattern == key,
    "ForAllValues:StringLike": _like,
}
