"""Reading infra/template.yaml, the one declaration of the platform's AWS resources.

`load()` is the template as written, which is what the local stack reads (tables,
functions, routes); `expanded()` is what CloudFormation makes of it once the
AWS::LanguageExtensions transform has run (the alarms are written as loops).
"""

import copy
import json
import re
from functools import cache
from pathlib import Path

import yaml

TEMPLATE = Path(__file__).with_name("template.yaml")


class _CfnLoader(yaml.CSafeLoader):
    """YAML with CloudFormation's short tags (!Ref, !Sub, !GetAtt ...) as plain dicts.
    LibYAML's parser (PyYAML's wheels carry it): the pure-Python one took a tenth of a
    second for the template, in each process of a local stack that reads it."""


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


def resources(kind: str, path: Path = TEMPLATE, as_deployed: bool = False) -> dict[str, dict]:
    """{logical id: resource} of every resource of one Type, e.g. AWS::DynamoDB::Table:
    those written out, or with `as_deployed` also those its loops write (see expand)."""
    template = expanded(path) if as_deployed else load(path)
    return {
        name: res
        for name, res in template["Resources"].items()
        if not name.startswith(FOR_EACH) and res["Type"] == kind
    }


# -- AWS::LanguageExtensions, as far as the template uses it ----------------------------

LANGUAGE_EXTENSIONS = "AWS::LanguageExtensions"
FOR_EACH = "Fn::ForEach::"


@cache
def expanded(path: Path = TEMPLATE) -> dict:
    """The template file as CloudFormation has it once its transform ran (see expand)."""
    return expand(load(path))


def expand(template: dict) -> dict:
    """A template as CloudFormation has it once the AWS::LanguageExtensions transform
    has run: every Fn::ForEach written out, Fn::FindInMap of literal keys looked up,
    Fn::ToJsonString turned into the JSON text it makes (a Fn::Sub where it holds a Ref,
    a Fn::GetAtt or a Fn::Sub), and a Fn::Sub whose variables are plain strings written
    with them put in (a string once nothing is left to substitute). What this does not
    know (a loop over a parameter, another function inside Fn::ToJsonString) is refused,
    never passed through half-done. `template` is left as it was."""
    out = _expand(template, template.get("Mappings", {}))
    transform = [t for t in _as_list(out.get("Transform")) if t != LANGUAGE_EXTENSIONS]
    if transform:
        out["Transform"] = transform[0] if len(transform) == 1 else transform
    # A mapping every lookup of which was resolved is no longer read: cfn-lint would
    # flag it unused in what SAM translates this to (infra/translate.py).
    still_read = {args[0] for args in _find_in_maps(out)}
    mappings = {name: m for name, m in out.pop("Mappings", {}).items() if name in still_read}
    if mappings:
        out["Mappings"] = mappings
    return out


def _as_list(value) -> list:
    return [] if value is None else value if isinstance(value, list) else [value]


def _expand(node, mappings: dict):
    if isinstance(node, list):
        return [_expand(item, mappings) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key.startswith(FOR_EACH):
            identifier, collection, fragment = value
            if not (isinstance(collection, list) and all(isinstance(v, str) for v in collection)):
                raise ValueError(f"{key}: only a written list of strings is expanded here")
            made = [
                _expand(_substitute(fragment, identifier, item), mappings) for item in collection
            ]
        else:
            made = [{key: _expand(value, mappings)}]
        for part in made:
            for made_key, made_value in part.items():
                if made_key in out or (made_key != key and made_key in node):
                    raise ValueError(f"{made_key} is written twice")
                out[made_key] = made_value
    return _resolve(out, mappings)


def _substitute(node, identifier: str, value: str):
    """A loop's fragment for one item: ${identifier} and &{identifier} (the item less its
    non-alphanumerics, for logical ids) in every key and string, Ref identifier the item."""
    if isinstance(node, str):
        return node.replace("${" + identifier + "}", value).replace(
            "&{" + identifier + "}", re.sub("[^0-9A-Za-z]", "", value)
        )
    if isinstance(node, list):
        return [_substitute(item, identifier, value) for item in node]
    if isinstance(node, dict):
        if node == {"Ref": identifier}:
            return value
        return {
            _substitute(k, identifier, value): _substitute(v, identifier, value)
            for k, v in node.items()
        }
    return node


def _resolve(node: dict, mappings: dict):
    """One intrinsic whose arguments are already expanded, made what the transform makes."""
    if len(node) != 1:
        return node
    ((function, args),) = node.items()
    if function == "Fn::FindInMap" and all(isinstance(a, str) for a in args[:3]):
        name, top, second = args[:3]
        found = mappings.get(name, {}).get(top, {})
        if second in found:
            return copy.deepcopy(found[second])
        if len(args) == 4:
            return args[3]["DefaultValue"]
        raise KeyError(f"Fn::FindInMap {args[:3]}: no such entry in Mappings")
    if function == "Fn::Sub":
        return _sub(*_as_list(args)) if isinstance(_as_list(args)[0], str) else node
    if function == "Fn::ToJsonString":
        return _sub(json.dumps(_with_placeholders(args), separators=(",", ":")))
    return node


def _sub(text: str, variables: dict | None = None):
    """Fn::Sub with the variables given as plain strings put in: its string, once nothing
    is left to substitute (CloudFormation's result either way)."""
    rest = {}
    for name, value in (variables or {}).items():
        if isinstance(value, str) and "${" not in value:
            text = text.replace("${" + name + "}", value)
        else:
            rest[name] = value
    if rest:
        return {"Fn::Sub": [text, rest]}
    return {"Fn::Sub": text} if "${" in text else text


def _with_placeholders(node):
    """Fn::ToJsonString's argument with each Ref, Fn::GetAtt and Fn::Sub as the ${...} a
    Fn::Sub of the JSON text resolves to the same value (names and ids need no escaping
    in JSON), and literal ${ escaped."""
    if isinstance(node, str):
        return node.replace("${", "${!")
    if isinstance(node, list):
        return [_with_placeholders(item) for item in node]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        ((function, args),) = node.items()
        if function == "Ref" and isinstance(args, str) and args != "AWS::NoValue":
            return "${" + args + "}"
        if function == "Fn::GetAtt" and isinstance(args, list):
            return "${" + ".".join(args) + "}"
        if function == "Fn::Sub" and isinstance(args, str):
            return args
        if function.startswith("Fn::") or function in ("Ref", "Condition"):
            raise ValueError(f"{function} inside Fn::ToJsonString is not expanded here")
    return {key: _with_placeholders(value) for key, value in node.items()}


def _find_in_maps(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "Fn::FindInMap" and isinstance(value, list) and isinstance(value[0], str):
                yield value
            yield from _find_in_maps(value)
    elif isinstance(node, list):
        for item in node:
            yield from _find_in_maps(item)


def function_layers(
    function: str, conditions: frozenset[str] = frozenset(), path: Path = TEMPLATE
) -> list[str]:
    """The logical ids of a function's layers in the order Lambda stacks them (the
    Globals' first, then its own), for a stack where `conditions` are the ones true."""
    template = load(path)
    layers = []
    for entry in [
        *template["Globals"]["Function"].get("Layers", []),
        *template["Resources"][function]["Properties"].get("Layers", []),
    ]:
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


def public_routes(api: str, path: Path = TEMPLATE) -> set[tuple[str, str]]:
    """The (path, METHOD) of `api` that its default authorizer does not guard (an event's
    `Auth: {Authorizer: NONE}`)."""
    return {
        (event["Properties"]["Path"], event["Properties"]["Method"].upper())
        for function in resources("AWS::Serverless::Function", path).values()
        for event in function["Properties"].get("Events", {}).values()
        if event["Type"] == "Api"
        and event["Properties"]["RestApiId"] == {"Ref": api}
        and event["Properties"].get("Auth", {}).get("Authorizer") == "NONE"
    }


def tables(path: Path = TEMPLATE) -> dict[str, dict]:
    found = resources("AWS::DynamoDB::Table", path)
    return {name: res["Properties"] for name, res in found.items()}


def create_tables(dynamodb_client, path: Path = TEMPLATE, only: set[str] | None = None) -> None:
    """Create every table of the template (or those of `only`) under its logical id (the
    local table name)."""
    for name, props in tables(path).items():
        if only is not None and name not in only:
            continue
        request = {
            "TableName": name,
            "BillingMode": props["BillingMode"],
            "AttributeDefinitions": props["AttributeDefinitions"],
            "KeySchema": props["KeySchema"],
        }
        if "GlobalSecondaryIndexes" in props:
            request["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
        if "StreamSpecification" in props:
            view = props["StreamSpecification"]["StreamViewType"]
            request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
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


# A queue's properties the local emulator keeps (what its consumers can tell).
QUEUE_ATTRIBUTES = ("VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds")


def create_queues(sqs_client, path: Path = TEMPLATE) -> None:
    """Create every queue of the template under its logical id (its local name), with
    its visibility timeout, retention and delay; then each one's redrive policy, once
    the dead-letter queue it names exists."""
    queues = resources("AWS::SQS::Queue", path)
    urls = {}
    for name, queue in queues.items():
        props = queue.get("Properties", {})
        attributes = {key: str(props[key]) for key in QUEUE_ATTRIBUTES if key in props}
        urls[name] = sqs_client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    for name, queue in queues.items():
        redrive = queue.get("Properties", {}).get("RedrivePolicy")
        if redrive is None:
            continue
        (target, _) = redrive["deadLetterTargetArn"]["Fn::GetAtt"]
        arn = sqs_client.get_queue_attributes(QueueUrl=urls[target], AttributeNames=["QueueArn"])
        policy = {
            "deadLetterTargetArn": arn["Attributes"]["QueueArn"],
            "maxReceiveCount": int(redrive["maxReceiveCount"]),
        }
        sqs_client.set_queue_attributes(
            QueueUrl=urls[name], Attributes={"RedrivePolicy": json.dumps(policy)}
        )


def key_alias(logical_id: str) -> str:
    """The alias a KMS key of the template has locally: its logical id's."""
    return f"alias/{logical_id}"


def create_keys(kms_client, path: Path = TEMPLATE) -> dict[str, str]:
    """Every KMS key of the template, under its alias (key_alias), unless the alias is
    there already; {logical id: its key's id}."""
    found = {
        alias["AliasName"]: alias["TargetKeyId"]
        for alias in kms_client.list_aliases().get("Aliases", [])
        if "TargetKeyId" in alias
    }
    made = {}
    for name, key in resources("AWS::KMS::Key", path).items():
        alias = key_alias(name)
        if alias not in found:
            description = key.get("Properties", {}).get("Description", name)
            found[alias] = kms_client.create_key(Description=description)["KeyMetadata"]["KeyId"]
            kms_client.create_alias(AliasName=alias, TargetKeyId=found[alias])
        made[name] = found[alias]
    return made


# What CloudFormation would set that the local pool has no use for: its name (the logical
# id is the local name), the trigger (the emulator runs the trigger's code itself:
# infra/local/user_pool.py) and the pricing tier.
_POOL_SKIPPED = {"UserPoolName", "LambdaConfig", "UserPoolTier"}
_CLIENT_SKIPPED = {"UserPoolId", "ClientName"}


def _literal(value) -> bool:
    """Whether a property's value holds no intrinsic function (a Ref, an If, ...)."""
    if isinstance(value, dict):
        return not any(key == "Ref" or key.startswith("Fn::") for key in value) and all(
            map(_literal, value.values())
        )
    if isinstance(value, list):
        return all(map(_literal, value))
    return True


def _properties(resource: dict, skipped: set[str]) -> dict:
    return {
        name: value
        for name, value in resource["Properties"].items()
        if name not in skipped and _literal(value)
    }


def create_user_pool(cognito_client, path: Path = TEMPLATE) -> tuple[str, str]:
    """Create the template's user pool (its attributes, password policy, sign-in by
    email), its app client and its groups, under their logical ids; (pool id, client id)."""
    ((name, pool),) = resources("AWS::Cognito::UserPool", path).items()
    pool_id = cognito_client.create_user_pool(PoolName=name, **_properties(pool, _POOL_SKIPPED))[
        "UserPool"
    ]["Id"]
    ((client_name, client),) = resources("AWS::Cognito::UserPoolClient", path).items()
    client_id = cognito_client.create_user_pool_client(
        UserPoolId=pool_id, ClientName=client_name, **_properties(client, _CLIENT_SKIPPED)
    )["UserPoolClient"]["ClientId"]
    for group in resources("AWS::Cognito::UserPoolGroup", path).values():
        cognito_client.create_group(
            UserPoolId=pool_id, **_properties(group, {"UserPoolId", "Precedence"})
        )
    return pool_id, client_id


def method_throttles(api: str, path: Path = TEMPLATE) -> dict[tuple[str, str], tuple[float, int]]:
    """(path, METHOD) -> (rate, burst) of each route `api` throttles on its own (its
    MethodSettings beside the stage's "/*"), with the parameters' defaults."""
    template = load(path)
    defaults = template.get("Parameters", {})

    def number(value) -> float:
        return float(defaults[value["Ref"]]["Default"] if isinstance(value, dict) else value)

    return {
        (setting["ResourcePath"][1:].replace("~1", "/"), setting["HttpMethod"].upper()): (
            number(setting["ThrottlingRateLimit"]),
            int(number(setting["ThrottlingBurstLimit"])),
        )
        for setting in template["Resources"][api]["Properties"].get("MethodSettings", [])
        if setting["ResourcePath"] != "/*"
    }
