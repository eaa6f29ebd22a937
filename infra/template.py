"""Reading infra/template.yaml, the one declaration of the platform's AWS resources."""

from functools import cache
from pathlib import Path

import yaml

TEMPLATE = Path(__file__).with_name("template.yaml")


class _CfnLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short tags (!Ref, !Sub, !GetAtt ...) as plain dicts."""


def _intrinsic(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    # !Ref and !Condition are not functions: CloudFormation's long forms drop the Fn::.
    return {suffix if suffix in ("Ref", "Condition") else f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _intrinsic)


@cache
def load(path: Path = TEMPLATE) -> dict:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_CfnLoader)


def resources(kind: str, path: Path = TEMPLATE) -> dict[str, dict]:
    """{logical id: resource} of every resource of one Type, e.g. AWS::DynamoDB::Table."""
    return {name: res for name, res in load(path)["Resources"].items() if res["Type"] == kind}


def function_layers(function: str, conditions: frozenset[str] = frozenset(),
                    path: Path = TEMPLATE) -> list[str]:
    """The logical ids of a function's layers in the order Lambda stacks them (the
    Globals' first, then its own), for a stack where `conditions` are the ones true."""
    template = load(path)
    layers = []
    for entry in [*template["Globals"]["Function"].get("Layers", []),
                  *template["Resources"][function]["Properties"].get("Layers", [])]:
        if isinstance(entry, dict) and "Fn::If" in entry:
            condition, when_true, when_false = entry["Fn::If"]
            entry = when_true if condition in conditions else when_false
        if entry != {"Ref": "AWS::NoValue"}:
            layers.append(entry["Ref"] if isinstance(entry, dict) else entry)  # or an ARN
    return layers


def api_routes(api: str, path: Path = TEMPLATE) -> dict[tuple[str, str], str]:
    """(path, METHOD) -> the logical id of the function API Gateway `api` sends it to."""
    found = {}
    for name, function in resources("AWS::Serverless::Function", path).items():
        for event in function["Properties"].get("Events", {}).values():
            if event["Type"] == "Api" and event["Properties"]["RestApiId"] == {"Ref": api}:
                key = (event["Properties"]["Path"], event["Properties"]["Method"].upper())
                if key in found:
                    raise ValueError(f"{key} is routed twice")
                found[key] = name
    return found


def tables(path: Path = TEMPLATE) -> dict[str, dict]:
    found = resources("AWS::DynamoDB::Table", path)
    return {name: res["Properties"] for name, res in found.items()}


def create_tables(dynamodb_client, path: Path = TEMPLATE) -> None:
    """Create every table of the template under its logical id (the local table name)."""
    for name, props in tables(path).items():
        request = {"TableName": name, "BillingMode": props["BillingMode"],
                   "AttributeDefinitions": props["AttributeDefinitions"],
                   "KeySchema": props["KeySchema"]}
        if "GlobalSecondaryIndexes" in props:
            request["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
        dynamodb_client.create_table(**request)


def drop_tables(dynamodb_client, path: Path = TEMPLATE) -> None:
    existing = set(dynamodb_client.list_tables()["TableNames"])
    for name in tables(path):
        if name in existing:
            dynamodb_client.delete_table(TableName=name)


def identity_validation(api: str = "GatewayApi", path: Path = TEMPLATE) -> str | None:
    """The regular expression API Gateway holds `api`'s authorization header to before it
    runs the authorizer (a header that does not match is 401 at once)."""
    auth = load(path)["Resources"][api]["Properties"].get("Auth", {})
    authorizer = auth.get("Authorizers", {}).get(auth.get("DefaultAuthorizer"), {})
    return authorizer.get("Identity", {}).get("ValidationExpression")
