"""What each function's role in infra/template.yaml allows, for the integration tests to
check every AWS call a function makes against it: the emulator, like moto, enforces no
IAM, and a call the role lacks fails only on AWS (a 500, or a warm-up that quietly
gives up). Covers what the template uses: inline statements on tables, their indexes
and DynamoDB's LeadingKeys condition, and SAM's secret-reading and Lambda-invoking
policy templates. Locally every table, function and secret is named by its logical id.
"""

import ast
import re
import sys
from dataclasses import dataclass
from functools import cache

from infra import template

FUNCTIONS = template.TEMPLATE.parent.parent / "functions"

# SAM's policy templates the template uses: (the IAM actions, the parameter naming the
# resource) as SAM expands them.
POLICY_TEMPLATES = {
    "AWSSecretsManagerGetSecretValuePolicy": (("secretsmanager:GetSecretValue",),
                                              "SecretArn"),
    "LambdaInvokePolicy": (("lambda:InvokeFunction",), "FunctionName"),
}
# What each item of a transaction is checked as (DynamoDB authorizes the items' own actions).
_TRANSACT_ACTIONS = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                     "ConditionCheck": "ConditionCheckItem"}
_CALL_ACTIONS = {("lambda", "Invoke"): "lambda:InvokeFunction",
                 ("secretsmanager", "GetSecretValue"): "secretsmanager:GetSecretValue"}


@dataclass(frozen=True)
class Access:
    """One thing a call asks IAM for: an action on a resource (a logical id, or
    "Table/index/name"), with the partition keys it touches (DynamoDB's LeadingKeys;
    None when the call names none, as a Query)."""

    action: str
    resource: str
    leading_keys: frozenset[str] | None = None


@dataclass(frozen=True)
class _Grant:
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: dict


def accesses(service: str, operation: str, params: dict) -> list[Access]:
    """What IAM checks for one call."""
    if service != "dynamodb":
        names = {"lambda": "FunctionName", "secretsmanager": "SecretId"}
        return [Access(_CALL_ACTIONS[service, operation], params[names[service]])]
    if operation == "BatchGetItem":
        return [Access("dynamodb:BatchGetItem", table, _keys(table, request["Keys"]))
                for table, request in params["RequestItems"].items()]
    if operation == "TransactWriteItems":
        found = []
        for item in params["TransactItems"]:
            (kind, request), = item.items()
            key = request.get("Key") or request["Item"]
            found.append(Access(f"dynamodb:{_TRANSACT_ACTIONS[kind]}", request["TableName"],
                                _keys(request["TableName"], [key])))
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


def functions_calling() -> frozenset[str]:
    """The functions whose code makes the call being made (empty for a test's own
    calls). It is the package of the functions' modules nearest the call on this
    thread's stack (an invoke answered in-process runs the invoked function's code
    inside its caller's). A package two handlers share (orders: the API and the sweep)
    narrows to one by a module only that one loads; a call from modules both load (a
    test reading through the repository) may be either's."""
    hosts = _functions_of_package()
    package, candidates = None, frozenset()
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        top = name.split(".")[0]
        if top in hosts:
            if package is None:
                package, candidates = top, hosts[top]
            elif top != package:
                break
            loaded_by = frozenset(function for function in hosts[top]
                                  if name in _modules_loaded_by(function))
            candidates = candidates & loaded_by or candidates
        frame = frame.f_back
    return candidates


def allows_any(functions: frozenset[str], access: Access) -> bool:
    return any(allows(function, access) for function in functions)


@cache
def _functions_of_package() -> dict[str, frozenset[str]]:
    hosts: dict[str, frozenset[str]] = {}
    for name, function in template.resources("AWS::Serverless::Function").items():
        package = function["Properties"]["Handler"].split(".")[0]
        hosts[package] = hosts.get(package, frozenset()) | {name}
    return hosts


@cache
def _modules_loaded_by(function: str) -> frozenset[str]:
    """The modules of its own package a function's handler imports, directly or not
    (read from the source, so nothing runs: a handler's import is its whole init)."""
    handler = template.resources("AWS::Serverless::Function")[function]["Properties"]["Handler"]
    package = handler.split(".")[0]
    pending, found = [handler.rsplit(".", 1)[0]], set()
    while pending:
        module = pending.pop()
        if module in found:
            continue
        found.add(module)
        tree = ast.parse((FUNCTIONS / f"{module.replace('.', '/')}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                named = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            pending.extend(name for name in named if name.split(".")[0] == package
                           and (FUNCTIONS / f"{name.replace('.', '/')}.py").is_file())
    return frozenset(found)


@cache
def _hash_keys() -> dict[str, str]:
    return {name: next(key["AttributeName"] for key in table["Properties"]["KeySchema"]
                       if key["KeyType"] == "HASH")
            for name, table in template.resources("AWS::DynamoDB::Table").items()}


def _keys(table: str, items: list[dict]) -> frozenset[str]:
    attribute = _hash_keys()[table]
    return frozenset(next(iter(item[attribute].values())) for item in items)


@cache
def _grants(function: str) -> tuple[_Grant, ...]:
    grants = []
    policies = template.resources("AWS::Serverless::Function")[function]["Properties"]
    for policy in policies.get("Policies", []):
        (kind, body), = policy.items()
        if kind == "Statement":
            for statement in body:
                assert statement["Effect"] == "Allow", statement  # no Deny is modelled
                grants.append(_Grant(_listed(statement["Action"]),
                                     tuple(map(_resource, _listed(statement["Resource"]))),
                                     statement.get("Condition", {})))
        else:
            actions, parameter = POLICY_TEMPLATES[kind]
            grants.append(_Grant(actions, (_resource(body[parameter]),), {}))
    return tuple(grants)


def _listed(value) -> tuple:
    return tuple(value) if isinstance(value, list) else (value,)


def _resource(value) -> str:
    """A logical id (or "Table/index/name") for !Ref X, !GetAtt X.Arn, !Sub "${X.Arn}/..."."""
    if "Ref" in value:
        return value["Ref"]
    if "Fn::GetAtt" in value:
        name, attribute = value["Fn::GetAtt"]
        assert attribute == "Arn", value
        return name
    reference = re.fullmatch(r"\$\{(\w+)\.Arn\}(/.*)?", value["Fn::Sub"])
    assert reference, value
    return reference[1] + (reference[2] or "")


def _matches(grant: _Grant, access: Access) -> bool:
    if not any(_like(pattern, access.action, case=False) for pattern in grant.actions):
        return False
    if not any(_like(pattern, access.resource)
               for resource in grant.resources for pattern in _names(resource)):
        return False
    for operator, tests in grant.conditions.items():
        for key, values in tests.items():
            assert key == "dynamodb:LeadingKeys", key  # the only condition the template uses
            if access.leading_keys is None:
                return False
            compare = {"ForAllValues:StringEquals": lambda pattern, key: pattern == key,
                       "ForAllValues:StringLike": _like}[operator]
            if not all(any(compare(pattern, key) for pattern in _listed(values))
                       for key in access.leading_keys):
                return False
    return True


@cache
def _names(resource: str) -> tuple[str, ...]:
    """What a call may name a resource by: its logical id (local names), and for a
    secret or a function the names a stack gives it (the secret's Name, any stack;
    CloudFormation's "<stack>-<logical id>-<suffix>"), bare or as an ARN."""
    declared = template.load()["Resources"].get(resource, {})
    if declared.get("Type") == "AWS::SecretsManager::Secret":
        name = declared["Properties"]["Name"]["Fn::Sub"].replace("${AWS::StackName}", "*")
        return resource, name, f"arn:*:secretsmanager:*:secret:{name}-*"
    if declared.get("Type") == "AWS::Serverless::Function":
        name = f"*-{resource.removesuffix('Function')}*"
        return resource, name, f"arn:*:lambda:*:function:{name}"
    return (resource,)


def _like(pattern: str, value: str, case: bool = True) -> bool:
    """IAM's wildcards: * any run of characters, ? any one."""
    expression = re.escape(pattern).replace(r"\*", ".*").replace(r"\?", ".")
    return re.fullmatch(expression, value, 0 if case else re.IGNORECASE) is not None
