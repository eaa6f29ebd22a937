"""The cloud release, proven offline: infra/template.yaml is whole and matches the code.

The artifacts are built the way the release builds them (`sam build`), and every handler
is imported from them in a clean interpreter that sees only its artifact and the layer.
"""

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from common.http.service_app import INTERNAL
from common.platform.env import MIN_JWT_SECRET_BYTES
from common.platform.settings import TABLES, Tokens, table_env_var
from infra import template

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "infra" / "template.yaml"
SAM_VENV = Path(os.environ.get("SAM_VENV", ROOT / ".venv-sam"))
# PYTHON: the Python 3.13 the artifacts' Makefiles compile bytecode with (`make test` exports
# the one it found; run alone, this interpreter, which is .venv's 3.13).
OFFLINE = {
    "PYTHON": sys.executable,
    **os.environ,
    "AWS_DEFAULT_REGION": "us-east-1",
    "SAM_CLI_TELEMETRY": "0",
}


def sam_tool(name: str) -> str:
    path = SAM_VENV / "bin" / name
    assert path.exists(), f"{path} is missing: `make test` installs the release tooling"
    return str(path)


def run(*command, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, env=OFFLINE, timeout=600, **kwargs
    )
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
    return result


def functions() -> dict[str, dict]:
    return {
        name: res["Properties"]
        for name, res in template.resources("AWS::Serverless::Function").items()
    }


def chalice_routes(app) -> set[tuple[str, str]]:
    """The routes API Gateway must serve: the services' internal ones it must not."""
    from common.http.service_app import gateway_routes

    return gateway_routes(app)


# -- the template itself ---------------------------------------------------------------


def test_cfn_lint_passes_the_template_and_the_cloudformation_it_translates_to(tmp_path):
    """One cfn-lint run over both (its start, schemas and all, is most of each run): the
    template as written, and as SAM translates it (infra/translate.py), where mistakes
    the lint's SAM schema lets through show."""
    translated = tmp_path / "cloudformation.yaml"
    run(sam_tool("python"), str(ROOT / "infra" / "translate.py"), str(TEMPLATE), str(translated))
    run(sam_tool("cfn-lint"), str(TEMPLATE), str(translated))


def test_sam_validate_passes():
    run(sam_tool("sam"), "validate", "--language-extensions", "--template-file", str(TEMPLATE))


def test_every_samconfig_environment_expands_the_templates_loops():
    """sam package, and so deploy, fails on the template's Fn::ForEach unless told to
    expand it; deploys read samconfig.toml, and none can be run offline to show it."""
    import tomllib

    config = tomllib.loads((ROOT / "samconfig.toml").read_text(encoding="utf-8"))
    environments = [name for name, section in config.items() if isinstance(section, dict)]
    assert {"default", "dev", "prod"} <= set(environments)
    for name in environments:
        assert config[name]["global"]["parameters"]["language_extensions"] is True, name


def _generated_secret(logical_id: str, name: str) -> dict:
    secret = template.load()["Resources"][logical_id]
    assert secret["Type"] == "AWS::SecretsManager::Secret"
    assert secret["Properties"]["Name"] == {"Fn::Sub": "${AWS::StackName}/" + name}
    generated = secret["Properties"]["GenerateSecretString"]
    assert generated["PasswordLength"] >= 2 * MIN_JWT_SECRET_BYTES
    assert "SecretString" not in secret["Properties"]
    return secret


def _reads_secret(function: str, logical_id: str) -> bool:
    return {
        "AWSSecretsManagerGetSecretValuePolicy": {"SecretArn": {"Ref": logical_id}}
    } in functions()[function].get("Policies", [])


def test_the_keys_are_generated_secrets_read_by_name_and_never_inlined():
    from infra.tokens import JWT_SECRET_NAME

    _generated_secret("JwtSigningKey", JWT_SECRET_NAME)  # what `make token STAGE=` reads
    _generated_secret("PageTokenSigningKey", "page-token-key")
    params = template.load()["Parameters"]
    assert not [name for name, p in params.items() if p.get("NoEcho")]
    for function, props in functions().items():
        env = props.get("Environment", {}).get("Variables", {})
        assert "JWT_SECRET" not in env and "PAGE_TOKEN_KEY" not in env, function
        readers = {"JwtSigningKey": "JWT_SECRET_ID", "PageTokenSigningKey": "PAGE_TOKEN_KEY_ID"}
        for secret, variable in readers.items():
            # Told the secret's name exactly when allowed to read it, and only then.
            assert (env.get(variable) == {"Ref": secret}) == _reads_secret(function, secret)
    assert _reads_secret("AuthorizerFunction", "JwtSigningKey")
    for function in ("InventoryFunction", "OrdersFunction", "ShippingFunction"):
        assert _reads_secret(function, "PageTokenSigningKey")


def test_every_function_and_api_is_traced():
    loaded = template.load()
    assert loaded["Globals"]["Function"]["Tracing"] == "Active"
    assert loaded["Globals"]["Api"]["TracingEnabled"] is True
    for function, props in functions().items():
        assert props.get("Tracing", "Active") == "Active", function


def test_every_function_logs_to_its_own_group_kept_for_the_retention_parameter():
    resources = template.load()["Resources"]
    groups = {props["LoggingConfig"]["LogGroup"]["Ref"] for props in functions().values()}
    assert len(groups) == len(functions())
    for group in groups:
        assert resources[group]["Type"] == "AWS::Logs::LogGroup"
        assert resources[group]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    assert template.load()["Parameters"]["LogRetentionDays"]["Default"] == 30


def _alarms() -> dict[str, dict]:
    """Every alarm as CloudFormation has it: most are written as loops."""
    return {
        name: res["Properties"]
        for name, res in template.resources("AWS::CloudWatch::Alarm", as_deployed=True).items()
    }


def test_every_alarm_notifies_the_topic_and_the_topic_can_mail_an_operator():
    resources = template.load()["Resources"]
    assert _alarms() and all(
        alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}] for alarm in _alarms().values()
    )
    subscription = resources["AlarmEmailSubscription"]
    assert subscription["Condition"] == "HasAlarmEmail"
    assert subscription["Properties"]["Endpoint"] == {"Ref": "AlarmEmail"}


def test_the_alarms_cover_what_operators_must_hear_of():
    from common.platform import metrics

    # A plain alarm watches one metric; a metric-math one (the authorizer's errors) the
    # metrics of its expression.
    watched = {
        (m["Namespace"], m["MetricName"], json.dumps(m.get("Dimensions"), sort_keys=True))
        for a in _alarms().values()
        for m in (
            [a]
            if "MetricName" in a
            else [q["MetricStat"]["Metric"] for q in a["Metrics"] if "MetricStat" in q]
        )
    }

    def watches(namespace, metric, dimensions):
        return (namespace, metric, json.dumps(dimensions, sort_keys=True)) in watched

    assert watches(
        "AWS/SQS",
        "ApproximateNumberOfMessagesVisible",
        [
            {
                "Name": "QueueName",
                "Value": {"Fn::GetAtt": ["OrderEventsDeadLetterQueue", "QueueName"]},
            }
        ],
    )
    assert watches(
        "AWS/ApiGateway",
        "5XXError",
        [
            {"Name": "ApiName", "Value": {"Fn::Sub": "${AWS::StackName}-gateway"}},
            {"Name": "Stage", "Value": {"Ref": "StageName"}},
        ],
    )
    assert template.resources("AWS::Serverless::Api")["GatewayApi"]["Properties"]["Name"] == {
        "Fn::Sub": "${AWS::StackName}-gateway"
    }
    for function in functions():
        for metric in ("Errors", "Throttles"):
            assert watches(
                "AWS/Lambda", metric, [{"Name": "FunctionName", "Value": {"Ref": function}}]
            ), function
    for metric in (metrics.BREAKER_OPENED, metrics.EVENTS_NOT_PUBLISHED):
        assert watches(metrics.NAMESPACE, metric, [{"Name": "service", "Value": "orders"}])


def test_a_refused_token_is_not_an_authorizer_failure_to_alarm_on():
    alarm = _alarms()["AuthorizerErrorsAlarm"]
    (expression,) = [q for q in alarm["Metrics"] if q.get("ReturnData")]
    stats = {q["Id"]: q["MetricStat"]["Metric"] for q in alarm["Metrics"] if "MetricStat" in q}
    errors, refused = expression["Expression"].replace("FILL(", "").split(" - ")
    assert stats[errors]["MetricName"] == "Errors"
    assert stats[refused.split(",")[0]] == {
        "Namespace": "Logistics",
        "MetricName": "TokensRejected",
        "Dimensions": [{"Name": "service", "Value": "authorizer"}],
    }


def test_the_dashboard_shows_every_metric_the_code_writes():
    from common.platform import metrics

    dashboard = template.resources("AWS::CloudWatch::Dashboard", as_deployed=True)["Dashboard"]
    body = dashboard["Properties"]["DashboardBody"]["Fn::Sub"]
    names = {
        value
        for name, value in vars(metrics).items()
        if name.isupper() and name != "NAMESPACE" and isinstance(value, str)
    }
    assert names and all(f'"{name}' in body for name in names)
    json.loads(re.sub(r"\$\{[^}]*\}", "x", body))  # well-formed once substituted


def test_the_sweep_runs_on_a_schedule_and_may_only_read_pending_orders_and_publish():
    props = functions()["EventSweeperFunction"]
    assert props["Handler"] == "event_sweep.lambda_app.handler"
    (event,) = props["Events"].values()
    assert event["Type"] == "Schedule"
    assert _granted("EventSweeperFunction") == {
        "dynamodb:Query": {"OrdersTable/index/pendingEvents"},
        "dynamodb:UpdateItem": {"OrdersTable"},
    }
    invokes = [p["LambdaInvokePolicy"] for p in props["Policies"] if "LambdaInvokePolicy" in p]
    assert invokes == [{"FunctionName": {"Ref": "OrderEventsFunction"}}]


def test_a_user_pool_is_created_on_request_and_becomes_the_issuer():
    resources = template.load()["Resources"]
    for name in ("UserPool", "UserPoolClient"):
        assert resources[name]["Condition"] == "CreatesUserPool"
    env = functions()["AuthorizerFunction"]["Environment"]["Variables"]
    assert env["JWT_ISSUER"]["Fn::If"][0] == "CreatesUserPool"
    assert "${UserPool}" in env["JWT_ISSUER"]["Fn::If"][1]["Fn::Sub"]
    assert env["JWT_AUDIENCE"]["Fn::If"][1] == {"Ref": "UserPoolClient"}


# The functions a request waits on: behind an API (or its authorizer), or called and
# waited for by one that is.
REQUEST_PATH = {
    "AuthorizerFunction",
    "InventoryFunction",
    "OrdersFunction",
    "ShippingFunction",
    "TrackingFunction",
    "NotificationFunction",
    "AuthFunction",
    "WebhooksFunction",
    "DashboardFunction",
    "UsersFunction",
}


def test_the_functions_a_request_waits_on_are_published_behind_an_alias_with_snapstart():
    """SnapStart restores published versions only: each such function publishes one behind
    the alias `live` at every deploy, with SnapStart unless the stage turns it off, and
    everything that calls it (the APIs, its authorizer, another function) calls the alias."""
    for name, properties in functions().items():
        behind_api = any(event["Type"] == "Api" for event in properties.get("Events", {}).values())
        if name in REQUEST_PATH or behind_api:
            assert name in REQUEST_PATH, f"{name} is behind an API: add it to REQUEST_PATH"
            assert properties["AutoPublishAlias"] == "live", name
            assert properties["SnapStart"] == {
                "Fn::If": [
                    "UsesSnapStart",
                    {"ApplyOn": "PublishedVersions"},
                    {"Ref": "AWS::NoValue"},
                ]
            }, name
        else:
            assert "SnapStart" not in properties, name
    for properties in functions().values():
        variables = properties.get("Environment", {}).get("Variables", {})
        for variable in ("INVENTORY_FUNCTION", "ORDERS_FUNCTION"):
            if variable in variables:
                assert variables[variable]["Ref"].endswith(".Alias"), variable
    parameter = template.load()["Parameters"]["SnapStart"]
    assert parameter["AllowedValues"] == ["true", "false"] and parameter["Default"] == "true"


def test_the_gateway_is_guarded_by_the_token_authorizer_and_notifications_are_not():
    apis = template.resources("AWS::Serverless::Api")
    auth = apis["GatewayApi"]["Properties"]["Auth"]
    authorizer = auth["Authorizers"][auth["DefaultAuthorizer"]]
    assert authorizer["FunctionPayloadType"] == "TOKEN"
    assert authorizer["Identity"]["Header"] == "Authorization"
    # Its alias: the published version SnapStart restores (docs/operations.md#snapstart).
    assert authorizer["FunctionArn"] == {"Ref": "AuthorizerFunction.Alias"}
    responses = apis["GatewayApi"]["Properties"]["GatewayResponses"]
    assert responses["UNAUTHORIZED"]["StatusCode"] == 401
    # API Gateway's own answers (a throttled sign-in's 429 among them) are never stored,
    # as the local gateway's are not (infra/local/api_gateway.py).
    for response in responses.values():
        assert response["ResponseParameters"]["Headers"]["Cache-Control"] == "'no-store'"
    assert "Auth" not in apis["NotificationApi"]["Properties"]
    # No route may opt out of the authorizer but the gateway's root, its index, signing in
    # (which is how a caller gets a token), and tracking's two: the public look-up and a
    # carrier's signed event (its signature is its authentication).
    assert (
        template.public_routes("GatewayApi")
        == {
            ("/", "GET"),
            ("/api/auth/login", "POST"),
            ("/api/auth/register", "POST"),
        }
        | TRACKING_ROUTES
    )
    public = {path for path, _ in template.public_routes("GatewayApi")}
    for name, props in functions().items():
        for event in props.get("Events", {}).values():
            opted_out = event["Properties"].get("Auth")
            assert opted_out is None or (
                opted_out == {"Authorizer": "NONE"} and event["Properties"]["Path"] in public
            ), event
            # Tracking's routes are a function of their own, which serves nothing else:
            # nothing behind the token shares its code or its concurrency.
            route = (event["Properties"].get("Path"), event["Properties"].get("Method"))
            assert (route in TRACKING_ROUTES) == (name == "TrackingFunction"), (name, route)


# The routes without a token that tracking serves (docs/api.md#tracking).
TRACKING_ROUTES = {
    ("/api/seguimiento/{codigoSeguimiento}", "GET"),
    ("/api/transportistas/{codigo}/eventos", "POST"),
}


# Powertools' idempotency records: not the platform's data, so no model and no backup;
# they expire by themselves.
IDEMPOTENCY = "IdempotencyTable"
# The breaker's shared state (orders/breaker.py): the orders function's alone, read
# and written with the client (no model), and not data anyone would restore.
BREAKERS = "CircuitBreakersTable"
# The userIds' claims (common/identity/user_ids.py): written with the client (no model, shared
# with `make user` and the backfill), by the orders function (an order's, UpdateItem),
# the sign-in function (an account's, PutItem and UpdateItem) and the users and erasure
# functions (whose account an id is, its person erased); kept (backed up).
USER_IDS = "UserIdsTable"
CLAIMS = {
    # ... and read, whether an order's person was erased (a create replayed for its
    # Idempotency-Key answers without their data); a shipment's likewise.
    "OrdersFunction": {"dynamodb:UpdateItem", "dynamodb:GetItem"},
    "ShippingFunction": {"dynamodb:GetItem"},
    "AuthFunction": {"dynamodb:PutItem", "dynamodb:UpdateItem"},
}
# The dashboard's figures (layers/common/common/dashboard/layout.py): items whose attributes are
# named by what they count (a day, an hour, a status), which no model can declare; read
# and written with the client.
FIGURES = "DashboardFiguresTable"
# The accounts whose sessions the platform ended (common/identity/accounts.py): one item
# of two attributes, written (users, erasure) and read (authorizer) with the client.
REVOCATIONS = "RevocationsTable"
# Sign-in attempts per email (functions/auth): a count that rebuilds itself and expires
# by itself (TTL), not data anyone would restore.
ATTEMPTS = "SignInAttemptsTable"
# Which functions keep idempotency records, each under its own key prefix.
IDEMPOTENT = {
    "InventoryFunction": "POST /api/inventario",
    "OrdersFunction": "POST /api/pedidos",
    "ShippingFunction": "POST /api/envios",
    "OrderEventsFunction": "order-events",
}


def test_tables_are_on_demand_and_the_platforms_data_backed_up():
    for name, props in template.tables().items():
        assert props["BillingMode"] == "PAY_PER_REQUEST", name
        if name == IDEMPOTENCY:
            assert props["TimeToLiveSpecification"] == {
                "AttributeName": "expiration",
                "Enabled": True,
            }
        elif name == ATTEMPTS:
            assert "PointInTimeRecoverySpecification" not in props
            assert props["TimeToLiveSpecification"] == {
                "AttributeName": "expiresAt",
                "Enabled": True,
            }
        elif name == BREAKERS:
            assert "PointInTimeRecoverySpecification" not in props
        else:
            assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


@pytest.mark.parametrize("function, scope", IDEMPOTENT.items())
def test_each_idempotent_function_may_touch_only_its_own_records(function, scope):
    props = functions()[function]
    assert props["Environment"]["Variables"]["IDEMPOTENCY_TABLE"] == {"Ref": IDEMPOTENCY}
    (statement,) = [
        s
        for p in props["Policies"]
        for s in p.get("Statement", [])
        if s["Resource"] == {"Fn::GetAtt": [IDEMPOTENCY, "Arn"]}
    ]
    assert statement["Condition"] == {
        "ForAllValues:StringLike": {"dynamodb:LeadingKeys": [f"{scope}#*"]}
    }
    assert set(statement["Action"]) == {
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
    }


def test_the_scopes_in_iam_are_the_scopes_in_the_code():
    import inventory.wiring
    import order_events.listener
    import orders.wiring
    import shipping.wiring

    assert IDEMPOTENT == {
        "InventoryFunction": inventory.wiring.CREATE_SCOPE,
        "OrdersFunction": orders.wiring.CREATE_SCOPE,
        "ShippingFunction": shipping.wiring.CREATE_SCOPE,
        "OrderEventsFunction": order_events.listener.SERVICE,
    }


def test_order_events_are_asynchronous_with_retries_and_a_dead_letter_queue():
    invoke = functions()["OrderEventsFunction"]["EventInvokeConfig"]
    assert 0 <= invoke["MaximumRetryAttempts"] <= 2
    assert invoke["DestinationConfig"]["OnFailure"]["Type"] == "SQS"
    orders_env = functions()["OrdersFunction"]["Environment"]["Variables"]
    assert orders_env["ORDER_EVENTS_FUNCTION"] == {"Ref": "OrderEventsFunction"}


def test_only_the_stock_movers_may_invoke_inventory_and_are_told_its_name():
    """The orders function (the stock check, an order's moves), the stock repair (the
    moves a crash left undone) and the shipping API and tracking functions (a shipment of
    part of an order taking its units out when it leaves: docs/api.md#shipments-of-parts)
    reach the inventory's units by invoking it; nobody else."""
    invokers = {
        name
        for name, props in functions().items()
        for policy in props.get("Policies", [])
        if isinstance(policy, dict)
        and policy.get("LambdaInvokePolicy", {}).get("FunctionName") == {"Ref": "InventoryFunction"}
    }
    assert invokers == {
        "OrdersFunction",
        "StockRepairFunction",
        "ShippingFunction",
        "TrackingFunction",
    }
    for name in invokers:
        env = functions()[name]["Environment"]["Variables"]
        # Its alias (SnapStart): the invoke policy's FunctionName* covers name:live.
        assert env["INVENTORY_FUNCTION"] == {"Ref": "InventoryFunction.Alias"}, name
        assert "INVENTORY_SERVICE_URL" not in env, name  # else the call would go over HTTP


def test_a_preflight_on_aws_allows_the_headers_the_functions_read():
    from common.http.service_app import CORS_ALLOW_HEADERS

    cors = template.load()["Resources"]["GatewayApi"]["Properties"]["Cors"]
    assert cors["AllowHeaders"] == "'" + ",".join(CORS_ALLOW_HEADERS) + "'"


def test_both_urls_are_outputs():
    assert {"GatewayUrl", "NotificationUrl"} <= set(template.load()["Outputs"])


# -- routes: declared once in Chalice, checked against the template ---------------------


def test_every_gateway_route_is_an_api_event_and_every_event_a_route():
    from app import app

    assert set(template.api_routes("GatewayApi")) == chalice_routes(app)


def test_every_notification_route_is_an_api_event_and_every_event_a_route():
    from notifications.lambda_app import handler as app

    assert set(template.api_routes("NotificationApi")) == chalice_routes(app)


def function_events(function: str) -> set[tuple[str, str]]:
    return {
        key
        for api in ("GatewayApi", "NotificationApi")
        for key, owner in template.api_routes(api).items()
        if owner == function
    }


# -- models: table names, keys and indexes match the template ----------------------------


# Where each function's tables are modelled: its own model module, or the layer's where
# other functions read the same table (the orders', the sign-in attempts', the webhooks',
# the rights requests').
MODEL_MODULES = {
    "inventory": "inventory.model",
    "orders": "common.orders.model",
    "shipping": "shipping.model",
    "auth": "common.identity.attempts_model",
    "webhooks": "common.webhooks.model",
    "users": "common.personal_data.requests_model",
}


def _service_models(package: str) -> list:
    from pynamodb.models import Model

    from common.storage.counters import CounterModel

    module = importlib.import_module(MODEL_MODULES[package])
    # Its own, or the layer's that it names as its own (the shipments' models are the
    # layer's: the users function reads them too).
    own = [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type)
        and issubclass(obj, Model)
        and obj is not CounterModel
        and (obj.__module__ == module.__name__ or obj.__name__ in getattr(module, "__all__", ()))
    ]
    return [*own, CounterModel]


SERVICES = {
    "InventoryFunction": "inventory",
    "OrdersFunction": "orders",
    "ShippingFunction": "shipping",
    "AuthFunction": "auth",
}
# Another service's table a function writes attributes of its items in, and exactly how:
# the shipping API and tracking functions count an order's parts on its item
# (shipping/parts_repository.py: its units on shipments, in the shipment's transaction,
# on their way and delivered), reading it by key and updating it, nothing else.
PARTS_OF = {"ShippingFunction": "OrdersTable", "TrackingFunction": "OrdersTable"}
PARTS_ACTIONS = {"dynamodb:GetItem", "dynamodb:UpdateItem"}
# Indexes of a service's tables that another function alone reads, never the service's own
# requests: the event sweep's (EventSweeperFunction), the late check's
# (LateShipmentsFunction), and a person's tracking events, exported (UsersFunction).
READ_ELSEWHERE = {
    "OrdersTable/index/pendingEvents",
    "ShipmentsTable/index/porVencer",
    "ShipmentEventsTable/index/byUser",
    # The reservations stored before the stock ledger: read by the stock migration alone
    # (infra/stock_migration.py), the inventory reads the ledger's.
    "StockReservationsTable/index/holding",
    "StockReservationsTable/index/byProductHolding",
}


def _logical_id(model) -> str:
    return model.Meta.logical_id


# Every package that declares models, by the function that owns its tables.
MODELLED = {**SERVICES, "WebhooksFunction": "webhooks", "UsersFunction": "users"}


@pytest.mark.parametrize("function, package", MODELLED.items())
def test_models_match_their_tables_and_indexes(function, package):
    tables = template.tables()
    for model in _service_models(package):
        props, schema = tables[_logical_id(model)], model._get_schema()
        # The template writes the partition key first (DynamoDB's rule); PynamoDB sorts.
        assert _keys(props["KeySchema"]) == _keys(schema["key_schema"])
        assert _as_set(props["AttributeDefinitions"]) == _as_set(schema["attribute_definitions"])
        declared = {
            i["IndexName"]: (_keys(i["KeySchema"]), i["Projection"])
            for i in props.get("GlobalSecondaryIndexes", [])
        }
        assert declared == {
            i["index_name"]: (_keys(i["key_schema"]), i["projection"])
            for i in schema["global_secondary_indexes"]
        }, model


def _keys(key_schema: list[dict]) -> list[tuple]:
    return sorted((k["KeyType"], k["AttributeName"]) for k in key_schema)


def _as_set(definitions: list[dict]) -> set:
    return {(d["AttributeName"], d["AttributeType"]) for d in definitions}


def _granted(function: str) -> dict[str, set]:
    """{action: {table or table/index/name}} of a function's own DynamoDB statements."""
    granted: dict[str, set] = {}
    for policy in functions()[function]["Policies"]:
        for statement in policy.get("Statement", []):
            resources = statement["Resource"]
            actions = statement["Action"]
            actions = [a for a in (actions if isinstance(actions, list) else [actions])]
            if not any(action.startswith("dynamodb:") for action in actions):
                continue  # the sign-in function's user pool: its own test
            for resource in resources if isinstance(resources, list) else [resources]:
                target = (
                    resource["Fn::GetAtt"][0]
                    if "Fn::GetAtt" in resource
                    else resource["Fn::Sub"].replace("${", "").replace(".Arn}", "")
                )
                for action in actions:
                    granted.setdefault(action, set()).add(target)
    return granted


@pytest.mark.parametrize("function, package", SERVICES.items())
def test_each_function_is_told_its_table_names_and_may_touch_only_those_tables(function, package):
    props = functions()[function]
    models = _service_models(package)
    owned = {_logical_id(model) for model in models}
    env = props["Environment"]["Variables"]
    for table in owned:
        assert env[table_env_var(table)] == {"Ref": table}
    granted = _granted(function)
    if function == "OrdersFunction":
        assert env["CIRCUIT_BREAKERS_TABLE"] == {"Ref": BREAKERS}
        assert {action for action, targets in granted.items() if BREAKERS in targets} == {
            "dynamodb:GetItem",
            "dynamodb:UpdateItem",
        }
    assert {action for action, targets in granted.items() if USER_IDS in targets} == CLAIMS.get(
        function, set()
    )
    if function in CLAIMS:
        assert env["USER_IDS_TABLE"] == {"Ref": USER_IDS}
    shared = PARTS_OF.get(function)
    if shared is not None:
        assert {action for action, targets in granted.items() if shared in targets} == (
            PARTS_ACTIONS
        )
        assert env[table_env_var(shared)] == {"Ref": shared}
    assert (
        set().union(*granted.values()) - {IDEMPOTENCY, BREAKERS, USER_IDS, shared}
        == owned
        | {
            f"{_logical_id(model)}/index/{index['index_name']}"
            for model in models
            for index in model._get_schema()["global_secondary_indexes"]
        }
        - READ_ELSEWHERE
    )
    # Indexes are queried, and a table only where one partition is one thing's items (a
    # shipment's tracking events, under its id); tables never scanned.
    partitioned = {
        _logical_id(m) for m in models if any(a.is_range_key for a in m.get_attributes().values())
    }
    assert all(
        "/index/" in target or target in partitioned for target in granted.get("dynamodb:Query", ())
    )
    assert "dynamodb:Scan" not in granted


def _counters(function: str) -> list[set[str]]:
    """The counters each of a function's statements on CountersTable lets it advance."""
    return [
        set(s["Condition"]["ForAllValues:StringEquals"]["dynamodb:LeadingKeys"])
        for p in functions()[function]["Policies"]
        for s in p.get("Statement", [])
        if s["Resource"] == {"Fn::GetAtt": ["CountersTable", "Arn"]}
    ]


@pytest.mark.parametrize("function, package", SERVICES.items())
def test_each_function_may_only_advance_its_own_counter(function, package):
    counters = {importlib.import_module(f"{package}.repository").COUNTER}
    if package == "shipping":  # its tracking events' ids, and its carriers'
        from shipping import carriers_repository, repository

        counters |= {repository.EVENTS_COUNTER, carriers_repository.COUNTER}
    if package == "inventory":  # its warehouses' ids
        from inventory import warehouse_repository

        counters |= {warehouse_repository.COUNTER}
    if package == "orders":  # its returns' ids
        from common.orders import return_model

        counters |= {return_model.COUNTER}
    assert _counters(function) == [counters]


def test_the_tracking_functions_reach_only_the_shipments_tables_and_what_they_need():
    """The routes without a token (TrackingFunction) and the late check touch no more than
    the shipping API does, and less: neither creates a shipment or a carrier, and the
    public look-up's limit is kept in the sign-in attempts' table, by address hash."""
    shipping = set().union(*_granted("ShippingFunction").values())
    tracking = _granted("TrackingFunction")
    assert set().union(*tracking.values()) - {"SignInAttemptsTable", "CountersTable"} <= shipping
    # and an order's parts, as a PATCH counts them (PARTS_OF)
    assert tracking["dynamodb:UpdateItem"] == {"ShipmentsTable", "CountersTable", "OrdersTable"}
    assert {a for a, targets in tracking.items() if "OrdersTable" in targets} == PARTS_ACTIONS
    assert tracking["dynamodb:PutItem"] == {"ShipmentEventsTable", "SignInAttemptsTable"}
    assert "dynamodb:DeleteItem" not in tracking and "dynamodb:Scan" not in tracking
    # Only a recorded event's id is drawn: no shipment, no carrier is made there.
    from shipping import repository

    assert _counters("TrackingFunction") == [{repository.EVENTS_COUNTER}]
    assert _granted("LateShipmentsFunction") == {
        "dynamodb:Query": {"ShipmentsTable/index/porVencer"},
        "dynamodb:UpdateItem": {"ShipmentsTable"},
    }
    variables = functions()["TrackingFunction"]["Environment"]["Variables"]
    for table in {"ShipmentsTable", "ShipmentEventsTable", "TrackingCodesTable"}:
        assert variables[table_env_var(table)] == {"Ref": table}
    # A shipment with lines brought back opens its return in the orders function (its
    # internal route, by invoke), from a carrier's event as from an operator's.
    invokers = {
        name
        for name, props in functions().items()
        for policy in props.get("Policies", [])
        if isinstance(policy, dict)
        and policy.get("LambdaInvokePolicy", {}).get("FunctionName") == {"Ref": "OrdersFunction"}
    }
    assert invokers == {"ShippingFunction", "TrackingFunction"}
    assert variables["ORDERS_FUNCTION"] == {"Ref": "OrdersFunction.Alias"}


def test_the_sign_in_function_may_only_create_users_of_the_stacks_pool():
    (statement,) = [
        s
        for p in functions()["AuthFunction"]["Policies"]
        for s in p.get("Statement", [])
        if any(a.startswith("cognito-idp:") for a in s["Action"])
    ]
    assert sorted(statement["Action"]) == [
        "cognito-idp:AdminCreateUser",
        "cognito-idp:AdminDeleteUser",
        "cognito-idp:AdminInitiateAuth",
        "cognito-idp:AdminSetUserPassword",
    ]
    condition, pool, elsewhere = statement["Resource"]["Fn::If"]
    assert (condition, pool) == ("CreatesUserPool", {"Fn::GetAtt": ["UserPool", "Arn"]})
    assert elsewhere["Fn::Sub"].endswith(":userpool/none")
    # Signing in is the administrator's flow, IAM-signed: no unsigned call of the app
    # client's is made (it has no password flow: test_sign_in).
    from common.platform.aws import OPERATIONS

    assert {*OPERATIONS["cognito-idp"]} >= {a.split(":")[1] for a in statement["Action"]}
    assert "InitiateAuth" not in OPERATIONS["cognito-idp"]


def test_the_settings_know_every_table_of_the_template():
    assert set(TABLES) == set(template.tables())


def test_every_table_belongs_to_a_model():
    used = {_logical_id(m) for package in MODELLED.values() for m in _service_models(package)}
    assert used | {IDEMPOTENCY, BREAKERS, USER_IDS, FIGURES, REVOCATIONS} == set(template.tables())


def test_the_figures_table_is_keyed_as_the_dashboard_reads_it():
    from common.dashboard import layout
    from common.dashboard.table import TABLE

    props = template.tables()[TABLE]
    assert TABLE == FIGURES
    assert props["KeySchema"] == [{"AttributeName": layout.KEY, "KeyType": "HASH"}]
    assert props["AttributeDefinitions"] == [{"AttributeName": layout.KEY, "AttributeType": "S"}]
    # The hours' items of shipments due go two days after their hour (the figures
    # function sets `expira`).
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expira", "Enabled": True}
    assert "GlobalSecondaryIndexes" not in props


# -- artifacts: built as the release builds them, imported in a clean interpreter -------


# The tests' own build, apart from `make build`'s (.aws-sam/build): `sam build --cached`
# keeps each function's and layer's artifact with the hash of its source (in build.toml,
# beside the build directory, and the cache directory), and builds again only what
# changed; the layers' pip installs and bytecode are most of a build.
BUILT = ROOT / ".aws-sam" / "tests"


@pytest.fixture(scope="module")
def build_dir():
    target = BUILT / "build"
    run(
        sam_tool("sam"),
        "build",
        "--language-extensions",
        "--template-file",
        str(TEMPLATE),
        "--build-dir",
        str(target),
        "--cached",
        "--cache-dir",
        str(BUILT / "cache"),
    )
    return target


CLEAN_INTERPRETER = """
import json, os, sys, types
layers = sys.argv[2].split(os.pathsep)
sys.path[:0] = [sys.argv[1], *layers]
module, _, attribute = sys.argv[3].rpartition(".")
handler = getattr(__import__(module, fromlist=[attribute]), attribute)
# Lambda's runtime sets the trace header for each invocation, never during init.
if sys.argv[4]:
    os.environ["_X_AMZN_TRACE_ID"] = sys.argv[4]
routes = [[p, m] for p, methods in getattr(handler, "routes", {}).items() for m in methods]
context = types.SimpleNamespace(function_name="f", memory_limit_in_mb=256, aws_request_id="r",
                                invoked_function_arn="arn:aws:lambda:us-east-1:1:function:f",
                                get_remaining_time_in_millis=lambda: 10_000)
result = handler(json.loads(sys.stdin.read()), context)
modules = sorted({f"{layer}:{name.split('.')[0]}" for name, module in list(sys.modules.items())
                  for layer in layers
                  if (getattr(module, "__file__", None) or "").startswith(layer + os.sep)})
print(json.dumps({"result": result, "routes": routes, "modules": modules}))
"""
# The lines above the last are the function's log, one JSON object each.


def layers_of(build_dir: Path, function: str, conditions=frozenset()) -> list[Path]:
    """The function's layers as Lambda stacks them, in a stack where `conditions` hold."""
    return [
        build_dir / layer / "python" for layer in template.function_layers(function, conditions)
    ]


def clean_run(
    build_dir: Path, function: str, stdin: str, env: dict, trace: str = "", conditions=frozenset()
):
    """`trace`: the X-Ray trace header of the invocation, set after init as Lambda does;
    `conditions`: the template's conditions true in the stack (its layers)."""
    # -I: ignore PYTHONPATH and user site; -S: no site-packages. Only stdlib, the
    # artifact and its layers. -B: write no bytecode beside them (Lambda's /var/task and
    # /opt are read-only).
    layers = os.pathsep.join(map(str, layers_of(build_dir, function, conditions)))
    return subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-B",
            "-c",
            CLEAN_INTERPRETER,
            str(build_dir / function),
            layers,
            functions()[function]["Handler"],
            trace,
        ],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ["PATH"], **env},
    )


# What Lambda sets that turns tracing on (common/platform/tracing.py): the X-Ray SDK loads and
# sends its segments to a UDP port nobody reads. The invocations' trace header.
ON_LAMBDA = {"LAMBDA_TASK_ROOT": "/var/task", "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:9"}
SAMPLED_TRACE = "Root=1-5f84c7a9-4a5b6c7d8e9f0a1b2c3d4e5f;Parent=53995c3f42cd8ad8;Sampled=1"


def invoke_artifact(
    build_dir: Path,
    function: str,
    event: dict,
    env: dict,
    trace: str = SAMPLED_TRACE,
    conditions=frozenset(),
) -> dict:
    """What the handler answered, the routes it serves, the layers' packages it imported
    (as "<layer dir>:<package>"), its log lines and what else it wrote (stderr)."""
    result = clean_run(build_dir, function, json.dumps(event), env, trace, conditions)
    assert result.returncode == 0, f"{function}: {result.stderr}"
    *log, last = result.stdout.splitlines()
    return {**json.loads(last), "log": [json.loads(line) for line in log], "stderr": result.stderr}


def rest_event(
    method: str, path: str, body: str | None = None, authorizer: dict | None = None
) -> dict:
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": {"Host": "abc.execute-api.us-east-1.amazonaws.com"},
        "multiValueHeaders": {},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "body": body,
        "isBase64Encoded": False,
        "requestContext": {
            "resourcePath": path,
            "httpMethod": method,
            "stage": "api",
            "path": f"/api{path}",
            "requestId": "test",
            "domainName": "abc.execute-api.us-east-1.amazonaws.com",
            # as the authorizer's policy passes its caller on
            "authorizer": authorizer
            or {
                "principalId": "ops@example.com",
                "sub": "ops@example.com",
                "role": "operator",
            },
        },
    }


def test_each_artifact_holds_only_its_own_package(build_dir):
    """Its handler's package alone (functions/Makefile): what functions share is in the
    layer."""

    for function, props in functions().items():
        package = props["Handler"].split(".")[0]
        contents = {p.name for p in (build_dir / function).iterdir()}
        assert contents == {package}, f"{function}: {contents}"


@pytest.fixture(scope="module")
def local_lambda():
    """Lambda's Invoke API: the inventory's internal routes as they answer over empty
    tables, for the stock repair's run; and the order-events function, which the orders'
    artifact publishes to."""
    import logging

    from tests.support.fake_lambda import LocalLambda, empty_inventory

    server = LocalLambda(
        {
            "OrderEventsFunction": lambda event, context: None,
            "InventoryFunction": empty_inventory,
        },
        logging.getLogger("release"),
    ).server.start()
    yield server.url
    server.stop()


@pytest.fixture(scope="module")
def runs(build_dir, emulator, local_lambda):
    """Each function's handler run once on a sample event from its artifact and the layer
    alone, in a clean interpreter, against the emulator."""
    import boto3

    from infra.dev.tokens import local_token
    from infra.local import LOCAL_AWS_ENV
    from tests.support.tokens import SECRET

    client = boto3.client("dynamodb")
    template.drop_tables(client)
    template.create_tables(client)
    key = boto3.client("secretsmanager", endpoint_url=emulator.url).create_secret(
        Name=f"release-{os.getpid()}/page-token-key", SecretString="k" * 64
    )["ARN"]
    aws = {
        **LOCAL_AWS_ENV,
        "AWS_ENDPOINT_URL_DYNAMODB": emulator.url,
        "AWS_ENDPOINT_URL_LAMBDA": local_lambda,
        "AWS_ENDPOINT_URL_SECRETS_MANAGER": emulator.url,
        "JWT_SECRET": SECRET.decode(),  # the authorizer's key: none is built in
        **ON_LAMBDA,
    }
    samples = {
        "InventoryFunction": rest_event("GET", "/api/inventario"),
        "OrdersFunction": rest_event("GET", "/api/pedidos"),
        "ShippingFunction": rest_event("GET", "/api/envios"),
        "NotificationFunction": rest_event("POST", "/notificaciones", '{"type":"TEST"}'),
        # No password: refused before the pool (none here) or any table is asked.
        "AuthFunction": rest_event("POST", "/api/auth/login", '{"email":"a@b.co"}'),
        "AuthorizerFunction": {
            "type": "TOKEN",
            "authorizationToken": f"Bearer {local_token(Tokens(jwt_secret=SECRET))}",
            "methodArn": "arn:aws:execute-api:us-east-1:1:abc/api/GET/api/inventario",
        },
        "OrderEventsFunction": {
            "pedidoId": 1,
            "userEmail": "a@b.co",
            "total": 1.5,
            "tipoPedido": "NACIONAL",
        },
        "EventSweeperFunction": {"source": "aws.events", "detail-type": "Scheduled Event"},
        "StockRepairFunction": {"source": "aws.events", "detail-type": "Scheduled Event"},
        "LateShipmentsFunction": {"source": "aws.events", "detail-type": "Scheduled Event"},
        # The public look-up of a code no shipment has: as anyone's (no authorizer).
        "TrackingFunction": {
            **rest_event("GET", "/api/seguimiento/ZZZZZZZZZZZZZZZZ"),
            "resource": "/api/seguimiento/{codigoSeguimiento}",
            "pathParameters": {"codigoSeguimiento": "ZZZZZZZZZZZZZZZZ"},
            "requestContext": {
                **rest_event("GET", "/api/seguimiento/{codigoSeguimiento}")["requestContext"],
                "authorizer": None,
                "identity": {"sourceIp": "192.0.2.7"},
            },
        },
        "KeyRotationFunction": {
            "SecretId": key,
            "Step": "createSecret",
            "ClientRequestToken": "0b6f9c2e-5d1a-4c3b-9e7f-1a2b3c4d5e6f",
        },
        "WebhooksFunction": rest_event("GET", "/api/webhooks"),
        "WebhookEventsFunction": {"Records": []},
        "WebhookDeliveryFunction": {"Records": []},
        # Its services are asked too, and are down here (nothing answers them): 200 all
        # the same, within their 2 s.
        "DashboardFunction": rest_event("GET", "/api/dashboard"),
        "DashboardFiguresFunction": {"Records": []},
        # A customer's own data: no account, no orders (read by the customer indexes).
        "UsersFunction": rest_event(
            "GET",
            "/api/usuarios/me/datos",
            authorizer={"sub": "c@b.co", "role": "customer", "userId": "424242"},
        ),
        "ErasureFunction": {"Records": []},
        "TokenClaimsFunction": {
            "version": "2",
            "triggerSource": "TokenGeneration_Authentication",
            "request": {"userAttributes": {"custom:userId": "42"}},
            "response": {},
        },
    }
    assert set(functions()) == set(samples)
    # As the template tells it: the stock repair's moves go to the inventory's function.
    told = {"StockRepairFunction": {"INVENTORY_FUNCTION": "InventoryFunction"}}
    return {
        function: invoke_artifact(build_dir, function, event, {**aws, **told.get(function, {})})
        for function, event in samples.items()
    }


def test_every_handler_answers_a_sample_event_from_its_artifact(runs):
    for function in (
        "InventoryFunction",
        "OrdersFunction",
        "ShippingFunction",
        "NotificationFunction",
        "WebhooksFunction",
        "DashboardFunction",
        "UsersFunction",
    ):
        assert runs[function]["result"]["statusCode"] == 200, (function, runs[function])
        # The deployed app serves exactly the routes API Gateway sends it, and beside
        # them only internal ones, which the gateway never routes (reached by invoke).
        served = {tuple(route) for route in runs[function]["routes"]}
        internal = {route for route in served if route[0].startswith(INTERNAL)}
        assert served - internal == function_events(function), function
        assert not {path for path, _ in function_events(function)} & {p for p, _ in internal}
    assert json.loads(runs["InventoryFunction"]["result"]["body"]) == []
    assert runs["AuthFunction"]["result"]["statusCode"] == 400
    served = {tuple(route) for route in runs["AuthFunction"]["routes"]}
    assert served == function_events("AuthFunction")
    policy = runs["AuthorizerFunction"]["result"]
    assert policy["policyDocument"]["Statement"][0]["Effect"] == "Allow"
    assert runs["OrderEventsFunction"]["result"] == {"forwarded": False}
    assert runs["EventSweeperFunction"]["result"] == {"republished": 0, "morePending": False}
    repaired = runs["StockRepairFunction"]["result"]
    assert (repaired["checked"], repaired["repaired"], repaired["complete"]) == (0, 0, True)
    assert runs["KeyRotationFunction"]["result"] is None  # a new version, pending
    assert runs["WebhookEventsFunction"]["result"] == {"events": 0, "queued": 0}
    assert runs["WebhookDeliveryFunction"]["result"] == {"batchItemFailures": []}
    assert runs["DashboardFiguresFunction"]["result"] == {"changes": 0, "written": 0}
    dashboard = json.loads(runs["DashboardFunction"]["result"]["body"])
    assert dashboard["pedidos"]["total"] == 0 and len(dashboard["ventasPorDia"]) == 14
    assert runs["ErasureFunction"]["result"] == {"batchItemFailures": []}
    assert runs["LateShipmentsFunction"]["result"] == {"marked": 0}
    assert runs["TrackingFunction"]["result"]["statusCode"] == 404
    served = {tuple(route) for route in runs["TrackingFunction"]["routes"]}
    assert served == function_events("TrackingFunction")
    assert json.loads(runs["UsersFunction"]["result"]["body"]) == {
        "cuenta": None,
        "pedidos": [],
        "envios": [],
        "devoluciones": [],
    }
    assert runs["TokenClaimsFunction"]["result"]["response"] == {
        "claimsAndScopeOverrideDetails": {
            "accessTokenGeneration": {"claimsToAddOrOverride": {"userId": "42"}}
        }
    }


# The layer's budget: what the functions import at run time, with its bytecode and
# botocore's data for the services called only (about 17 MB of files), well under what it
# weighed with chalice's command line and every service's model (46 MB of files without
# bytecode; 86 MB as measured with it).
LAYER_BUDGET_MB = 20


def _layer_packages(layer: Path) -> set[str]:
    """The importable names a layer holds: packages, modules, compiled extensions."""
    return {
        f"{layer}:{p.name.split('.')[0]}"
        for p in layer.iterdir()
        if not p.name.endswith(".dist-info") and p.name != "__pycache__"
    }


def test_every_package_in_the_common_layer_is_imported_by_some_function(build_dir, runs):
    layer = "CommonLayer"
    held = _layer_packages(build_dir / layer / "python")
    imported = set().union(*(run["modules"] for run in runs.values()))
    assert held - imported == set()
    for tooling in (
        "pip",
        "setuptools",
        "wheel",
        "click",
        "yaml",
        "inquirer",
        "bin",
        "cffi",
        "pycparser",
    ):
        assert f"{build_dir / layer / 'python'}:{tooling}" not in held


def test_the_layer_fits_its_budget(build_dir):
    layer = build_dir / "CommonLayer" / "python"
    size = sum(path.stat().st_size for path in layer.rglob("*") if path.is_file())
    assert size < LAYER_BUDGET_MB * 1024 * 1024, f"{size / 2**20:.1f} MB"


def test_a_bad_setting_fails_the_functions_init_naming_the_variable(build_dir):
    """On Lambda a failed init is reported and retried, never turned into 500s later."""
    result = clean_run(build_dir, "OrdersFunction", "{}", {"BREAKER_FAIL_MAX": "0"})
    assert result.returncode != 0
    assert result.stderr.strip() == (
        "Configuration error: BREAKER_FAIL_MAX='0': must be an integer >= 1"
    )


def test_every_function_warms_up_at_init_and_leaves_the_cold_start_to_its_first_request(runs):
    for function, run_ in runs.items():
        assert not [line for line in run_["log"] if line["level"] == "WARNING"], function
        # Lambda runs init untraced: an AWS call recorded then is dropped with a warning.
        assert run_["stderr"] == "", function
    rehearsal, first = runs["InventoryFunction"]["log"]
    # The warm-up reads an id no one has (common.platform.lambda_init.REHEARSAL_ID): one GetItem.
    assert (rehearsal["sub"], rehearsal["status"]) == ("init-rehearsal", 404)
    assert "cold_start" not in rehearsal
    assert first["cold_start"] is True and first["status"] == 200


def _clean_python(code: str, *paths: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", code, *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ["PATH"], "AWS_DEFAULT_REGION": "us-east-1"},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_botocore_in_the_layer_keeps_the_operations_called_and_nothing_else(build_dir):
    from common.platform.aws import OPERATIONS

    layer = build_dir / "CommonLayer" / "python"
    data = layer / "botocore" / "data"
    assert {path.name for path in data.iterdir() if path.is_dir()} == set(OPERATIONS)
    assert not list(data.rglob("*.gz")), "stored inflated: inflating is part of a cold start"
    built = json.loads(
        _clean_python(
            "import json, sys; sys.path[:0] = sys.argv[1:]\n"
            "import botocore.session\n"
            "session = botocore.session.get_session()\n"
            f"print(json.dumps({{s: session.create_client(s).meta.service_model.operation_names "
            f"for s in {sorted(OPERATIONS)!r}}}))",
            layer,
        )
    )
    assert {service: set(names) for service, names in built.items()} == OPERATIONS


def test_every_module_of_the_release_has_bytecode_for_lambdas_python(build_dir):
    runtime = template.load()["Globals"]["Function"]["Runtime"]  # python3.13
    tag = "cpython-" + runtime.removeprefix("python").replace(".", "")
    sources = [path for path in build_dir.rglob("*.py") if "botocore/data" not in str(path)]
    assert len(sources) > 500
    missing = [
        path
        for path in sources
        if not (path.parent / "__pycache__" / f"{path.stem}.{tag}.pyc").exists()
    ]
    assert not missing, missing[:5]


def _authorizer_allows(build_dir: Path, token: str, env: dict, conditions=frozenset()) -> dict:
    event = {
        "type": "TOKEN",
        "authorizationToken": f"Bearer {token}",
        "methodArn": "arn:aws:execute-api:us-east-1:1:abc/api/GET/api/inventario",
    }
    return invoke_artifact(build_dir, "AuthorizerFunction", event, env, conditions=conditions)


def test_the_deployed_authorizer_verifies_with_the_key_in_secrets_manager(build_dir, emulator):
    import boto3

    from infra.local import LOCAL_AWS_ENV
    from tests.support.tokens import make_token

    key = "k" * 64
    secrets = boto3.client("secretsmanager", endpoint_url=emulator.url)
    arn = secrets.create_secret(Name=f"release-{os.getpid()}/jwt-signing-key", SecretString=key)[
        "ARN"
    ]
    env = {**LOCAL_AWS_ENV, "AWS_ENDPOINT_URL_SECRETS_MANAGER": emulator.url, "JWT_SECRET_ID": arn}
    run_ = _authorizer_allows(build_dir, make_token(secret=key.encode()), env)
    assert run_["result"]["principalId"] == "ana@example.com"
    assert not [line for line in run_["log"] if line["level"] == "WARNING"]  # read at init


def test_the_deployed_authorizer_takes_rs256_tokens_from_an_issuer(build_dir):
    """The crypto layer at work: PyJWT's RS256 from the authorizer's artifact and layers."""
    import time

    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    from tests.support.fakes import ScriptedServer

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()))
    jwks = ScriptedServer(body=json.dumps({"keys": [{**jwk, "kid": "k1", "alg": "RS256"}]}))
    try:
        now = int(time.time())
        token = jwt.encode(
            {
                "sub": "user-1",
                "iss": jwks.url,
                "aud": "client-1",
                "iat": now,
                "exp": now + 60,
                "cognito:groups": ["operators"],
            },
            private,
            algorithm="RS256",
            headers={"kid": "k1"},
        )
        run_ = _authorizer_allows(
            build_dir,
            token,
            {
                "JWT_ISSUER": jwks.url,
                "JWT_AUDIENCE": "client-1",
                "JWT_JWKS_URL": f"{jwks.url}/keys",
            },
            conditions={"VerifiesOidc"},
        )
    finally:
        jwks.stop()
    assert run_["result"]["principalId"] == "user-1"
    crypto = build_dir / "CryptoLayer" / "python"
    assert _layer_packages(crypto) - set(run_["modules"]) == set()  # all of it is used
    assert f"{crypto}:cryptography" in run_["modules"]


def test_the_crypto_layer_is_the_authorizers_only_where_it_verifies_rs256(runs):
    conditions = template.load()["Conditions"]
    assert conditions["VerifiesOidc"] == {
        "Fn::Or": [{"Condition": "CreatesUserPool"}, {"Condition": "HasJwtIssuer"}]
    }
    assert (
        template.resources("AWS::Serverless::LayerVersion")["CryptoLayer"]["Condition"]
        == "VerifiesOidc"
    )
    for function in functions():
        with_issuer = template.function_layers(function, frozenset({"VerifiesOidc"}))
        assert template.function_layers(function) == ["CommonLayer"], function
        expected = (
            ["CommonLayer", "CryptoLayer"] if function == "AuthorizerFunction" else ["CommonLayer"]
        )
        assert with_issuer == expected, function
    # With the shared key (HS256), PyJWT finds no cryptography to load at init.
    assert not [
        name for name in runs["AuthorizerFunction"]["modules"] if name.endswith(":cryptography")
    ]


def test_an_order_is_traced_with_its_stock_check_publish_and_aws_calls(
    build_dir, runs, local_lambda
):
    """On Lambda (LAMBDA_TASK_ROOT, a trace header), from the artifact: the subsegments
    reach the X-Ray daemon's UDP port, here a socket of the test's."""
    import socket
    import uuid

    from infra.local import LOCAL_AWS_ENV
    from tests.support.fakes import ScriptedServer
    from tests.support.tokens import make_token

    daemon = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    daemon.bind(("127.0.0.1", 0))
    daemon.settimeout(0.5)
    inventory = ScriptedServer(body="true")  # every stock check: in stock
    trace = f"Root=1-{uuid.uuid4().hex[:8]}-{uuid.uuid4().hex[:24]};Parent={'a' * 16};Sampled=1"
    body = json.dumps(
        {
            "userId": 1,
            "userEmail": "a@b.co",
            "clienteNombre": "Ana",
            "total": 5,
            "tipoPedido": "NACIONAL",
            "destino": "Lima",
            "productoId": 1,
            "cantidad": 1,
        }
    )
    event = rest_event("POST", "/api/pedidos", body)
    event["headers"]["Authorization"] = f"Bearer {make_token()}"
    event["requestContext"]["authorizer"] = {
        "sub": "ana@example.com",
        "role": "customer",
        "userId": "1",
    }
    try:
        run_ = invoke_artifact(
            build_dir,
            "OrdersFunction",
            event,
            {
                **LOCAL_AWS_ENV,
                "AWS_ENDPOINT_URL_DYNAMODB": os.environ["AWS_ENDPOINT_URL_DYNAMODB"],
                "AWS_ENDPOINT_URL_LAMBDA": local_lambda,
                "INVENTORY_SERVICE_URL": inventory.url,
                "LAMBDA_TASK_ROOT": str(build_dir / "OrdersFunction"),
                "AWS_XRAY_DAEMON_ADDRESS": f"127.0.0.1:{daemon.getsockname()[1]}",
            },
            trace,
        )
        documents = []
        while True:
            try:
                packet = daemon.recv(65536).decode()
            except TimeoutError:
                break
            documents.append(json.loads(packet.split("\n", 1)[1]))
    finally:
        inventory.stop()
        daemon.close()
    assert run_["result"]["statusCode"] == 201
    names = {doc["name"] for doc in documents}
    assert {doc["trace_id"] for doc in documents} == {trace.split(";")[0].split("=")[1]}
    assert {
        "## __call__",  # the handler: the Chalice app's call
        "## common.stock.client.StockClient.check",
        "## common.orders.outbox.LambdaPublisher.publish",
        "dynamodb",
        "lambda",
    } <= names, names  # and every AWS call
