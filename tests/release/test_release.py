"""The cloud release, proven offline: infra/template.yaml is whole and matches the code.

The artifacts are built the way the release builds them (`sam build`), and every handler
is imported from them in a clean interpreter that sees only its artifact and the layer.
"""

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from common.settings import MIN_JWT_SECRET_BYTES, TABLES, table_env_var
from infra import template

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "infra" / "template.yaml"
SAM_VENV = Path(os.environ.get("SAM_VENV", ROOT / ".venv-sam"))
OFFLINE = {**os.environ, "AWS_DEFAULT_REGION": "us-east-1", "SAM_CLI_TELEMETRY": "0"}


def sam_tool(name: str) -> str:
    path = SAM_VENV / "bin" / name
    assert path.exists(), f"{path} is missing: `make test` installs the release tooling"
    return str(path)


def run(*command, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=OFFLINE,
                            timeout=600, **kwargs)
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
    return result


def functions() -> dict[str, dict]:
    return {name: res["Properties"]
            for name, res in template.resources("AWS::Serverless::Function").items()}





def chalice_routes(app) -> set[tuple[str, str]]:
    return {(path, method) for path, methods in app.routes.items() for method in methods}


# -- the template itself ---------------------------------------------------------------

def test_cfn_lint_passes():
    run(sam_tool("cfn-lint"), str(TEMPLATE))


def test_sam_validate_passes():
    run(sam_tool("sam"), "validate", "--template-file", str(TEMPLATE))


def test_the_translated_cloudformation_lints_clean(tmp_path):
    translated = tmp_path / "cloudformation.yaml"
    run(sam_tool("python"), str(ROOT / "infra" / "translate.py"), str(TEMPLATE), str(translated))
    run(sam_tool("cfn-lint"), str(translated))


def test_the_jwt_secret_is_a_noecho_parameter_without_default():
    secret = template.load()["Parameters"]["JwtSecret"]
    assert secret["NoEcho"] is True and "Default" not in secret
    assert secret["MinLength"] >= MIN_JWT_SECRET_BYTES


def test_the_gateway_is_guarded_by_the_token_authorizer_and_notifications_are_not():
    apis = template.resources("AWS::Serverless::Api")
    auth = apis["GatewayApi"]["Properties"]["Auth"]
    authorizer = auth["Authorizers"][auth["DefaultAuthorizer"]]
    assert authorizer["FunctionPayloadType"] == "TOKEN"
    assert authorizer["Identity"]["Header"] == "Authorization"
    assert authorizer["FunctionArn"] == {"Fn::GetAtt": ["AuthorizerFunction", "Arn"]}
    unauthorized = apis["GatewayApi"]["Properties"]["GatewayResponses"]["UNAUTHORIZED"]
    assert unauthorized["StatusCode"] == 401
    assert "Auth" not in apis["NotificationApi"]["Properties"]
    for props in functions().values():
        for event in props.get("Events", {}).values():
            assert "Auth" not in event["Properties"], "no route may opt out of the authorizer"


# Powertools' idempotency records: not the platform's data, so no model and no backup;
# they expire by themselves.
IDEMPOTENCY = "IdempotencyTable"
# Which functions keep idempotency records, each under its own key prefix.
IDEMPOTENT = {"InventoryFunction": "POST /api/inventario", "OrdersFunction": "POST /api/pedidos",
              "ShippingFunction": "POST /api/envios", "OrderEventsFunction": "order-events"}


def test_tables_are_on_demand_and_the_platforms_data_backed_up():
    for name, props in template.tables().items():
        assert props["BillingMode"] == "PAY_PER_REQUEST", name
        if name == IDEMPOTENCY:
            assert props["TimeToLiveSpecification"] == {"AttributeName": "expiration",
                                                        "Enabled": True}
        else:
            assert props["PointInTimeRecoverySpecification"] == {
                "PointInTimeRecoveryEnabled": True}


@pytest.mark.parametrize("function, scope", IDEMPOTENT.items())
def test_each_idempotent_function_may_touch_only_its_own_records(function, scope):
    props = functions()[function]
    assert props["Environment"]["Variables"]["IDEMPOTENCY_TABLE"] == {"Ref": IDEMPOTENCY}
    (statement,) = [s for p in props["Policies"] for s in p.get("Statement", [])
                    if s["Resource"] == {"Fn::GetAtt": [IDEMPOTENCY, "Arn"]}]
    assert statement["Condition"] == {
        "ForAllValues:StringLike": {"dynamodb:LeadingKeys": [f"{scope}#*"]}}
    assert set(statement["Action"]) == {"dynamodb:GetItem", "dynamodb:PutItem",
                                        "dynamodb:UpdateItem", "dynamodb:DeleteItem"}


def test_the_scopes_in_iam_are_the_scopes_in_the_code():
    import inventory.wiring
    import order_events.listener
    import orders.wiring
    import shipping.wiring

    assert IDEMPOTENT == {"InventoryFunction": inventory.wiring.CREATE_SCOPE,
                          "OrdersFunction": orders.wiring.CREATE_SCOPE,
                          "ShippingFunction": shipping.wiring.CREATE_SCOPE,
                          "OrderEventsFunction": order_events.listener.SERVICE}


def test_order_events_are_asynchronous_with_retries_and_a_dead_letter_queue():
    invoke = functions()["OrderEventsFunction"]["EventInvokeConfig"]
    assert 0 <= invoke["MaximumRetryAttempts"] <= 2
    assert invoke["DestinationConfig"]["OnFailure"]["Type"] == "SQS"
    orders_env = functions()["OrdersFunction"]["Environment"]["Variables"]
    assert orders_env["ORDER_EVENTS_FUNCTION"] == {"Ref": "OrderEventsFunction"}


def test_only_the_orders_function_may_invoke_inventory_and_is_told_its_name():
    invokers = {name for name, props in functions().items()
                for policy in props.get("Policies", [])
                if isinstance(policy, dict) and policy.get("LambdaInvokePolicy", {}).get(
                    "FunctionName") == {"Ref": "InventoryFunction"}}
    assert invokers == {"OrdersFunction"}
    orders_env = functions()["OrdersFunction"]["Environment"]["Variables"]
    assert orders_env["INVENTORY_FUNCTION"] == {"Ref": "InventoryFunction"}
    assert "INVENTORY_SERVICE_URL" not in orders_env  # else the call would go over HTTP


def test_a_preflight_on_aws_allows_the_headers_the_functions_read():
    from common.http import CORS_ALLOW_HEADERS

    cors = template.load()["Resources"]["GatewayApi"]["Properties"]["Cors"]
    assert cors["AllowHeaders"] == "'" + ",".join(CORS_ALLOW_HEADERS) + "'"


def test_both_urls_are_outputs():
    assert {"GatewayUrl", "NotificationUrl"} <= set(template.load()["Outputs"])


# -- routes: declared once in Chalice, checked against the template ---------------------

def test_every_gateway_route_is_an_api_event_and_every_event_a_route():
    from app import app

    assert set(template.api_routes("GatewayApi")) == chalice_routes(app)


def test_every_notification_route_is_an_api_event_and_every_event_a_route():
    from notifications.lambda_app import app

    assert set(template.api_routes("NotificationApi")) == chalice_routes(app)


def function_events(function: str) -> set[tuple[str, str]]:
    return {key for api in ("GatewayApi", "NotificationApi")
            for key, owner in template.api_routes(api).items() if owner == function}


# -- models: table names, keys and indexes match the template ----------------------------

def _service_models(package: str) -> list:
    from pynamodb.models import Model

    from common.counters import CounterModel

    module = importlib.import_module(f"{package}.model")
    own = [obj for obj in vars(module).values() if isinstance(obj, type)
           and issubclass(obj, Model) and obj.__module__ == module.__name__]
    return [*own, CounterModel]


SERVICES = {"InventoryFunction": "inventory", "OrdersFunction": "orders",
            "ShippingFunction": "shipping"}


def _logical_id(model) -> str:
    return model.Meta.logical_id


@pytest.mark.parametrize("function, package", SERVICES.items())
def test_models_match_their_tables_and_indexes(function, package):
    tables = template.tables()
    for model in _service_models(package):
        props, schema = tables[_logical_id(model)], model._get_schema()
        assert props["KeySchema"] == schema["key_schema"]
        assert _as_set(props["AttributeDefinitions"]) == _as_set(schema["attribute_definitions"])
        declared = {i["IndexName"]: (_keys(i["KeySchema"]), i["Projection"])
                    for i in props.get("GlobalSecondaryIndexes", [])}
        assert declared == {i["index_name"]: (_keys(i["key_schema"]), i["projection"])
                            for i in schema["global_secondary_indexes"]}, model


def _keys(key_schema: list[dict]) -> list[tuple]:
    return sorted((k["KeyType"], k["AttributeName"]) for k in key_schema)


def _as_set(definitions: list[dict]) -> set:
    return {(d["AttributeName"], d["AttributeType"]) for d in definitions}


def _granted(function: str) -> dict[str, set]:
    """{action: {table or table/index/name}} of a function's own policy statements."""
    granted: dict[str, set] = {}
    for policy in functions()[function]["Policies"]:
        for statement in policy.get("Statement", []):
            resources = statement["Resource"]
            actions = statement["Action"]
            for resource in resources if isinstance(resources, list) else [resources]:
                target = (resource["Fn::GetAtt"][0] if "Fn::GetAtt" in resource else
                          resource["Fn::Sub"].replace("${", "").replace(".Arn}", ""))
                for action in actions if isinstance(actions, list) else [actions]:
                    granted.setdefault(action, set()).add(target)
    return granted


@pytest.mark.parametrize("function, package", SERVICES.items())
def test_each_function_is_told_its_table_names_and_may_touch_only_those_tables(
        function, package):
    props = functions()[function]
    models = _service_models(package)
    owned = {_logical_id(model) for model in models}
    env = props["Environment"]["Variables"]
    for table in owned:
        assert env[table_env_var(table)] == {"Ref": table}
    granted = _granted(function)
    assert set().union(*granted.values()) - {IDEMPOTENCY} == owned | {
        f"{_logical_id(model)}/index/{index['index_name']}" for model in models
        for index in model._get_schema()["global_secondary_indexes"]}
    # Indexes are only queried; tables never scanned.
    assert all("/index/" in target for target in granted.get("dynamodb:Query", ()))
    assert "dynamodb:Scan" not in granted


@pytest.mark.parametrize("function, package", SERVICES.items())
def test_each_function_may_only_advance_its_own_counter(function, package):
    counter = importlib.import_module(f"{package}.repository").COUNTER
    statements = [s for p in functions()[function]["Policies"] for s in p.get("Statement", [])
                  if s["Resource"] == {"Fn::GetAtt": ["CountersTable", "Arn"]}]
    assert [s["Condition"]["ForAllValues:StringEquals"]["dynamodb:LeadingKeys"]
            for s in statements] == [[counter]]


def test_the_settings_know_every_table_of_the_template():
    assert set(TABLES) == set(template.tables())


def test_every_table_belongs_to_a_model():
    used = {_logical_id(m) for package in SERVICES.values() for m in _service_models(package)}
    assert used | {IDEMPOTENCY} == set(template.tables())


# -- artifacts: built as the release builds them, imported in a clean interpreter -------

@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    target = tmp_path_factory.mktemp("sam") / "build"
    run(sam_tool("sam"), "build", "--template-file", str(TEMPLATE), "--build-dir", str(target))
    return target


CLEAN_INTERPRETER = """
import json, sys, types
sys.path[:0] = sys.argv[1:3]
module, _, attribute = sys.argv[3].rpartition(".")
handler = getattr(__import__(module, fromlist=[attribute]), attribute)
routes = [[p, m] for p, methods in getattr(handler, "routes", {}).items() for m in methods]
context = types.SimpleNamespace(function_name="f", memory_limit_in_mb=256, aws_request_id="r",
                                invoked_function_arn="arn:aws:lambda:us-east-1:1:function:f",
                                get_remaining_time_in_millis=lambda: 10_000)
result = handler(json.loads(sys.stdin.read()), context)
layer = sys.argv[2]
modules = sorted({name.split(".")[0] for name, module in list(sys.modules.items())
                  if (getattr(module, "__file__", None) or "").startswith(layer)})
print(json.dumps({"result": result, "routes": routes, "modules": modules}))
"""
# The lines above the last are the function's log, one JSON object each.


def invoke_artifact(build_dir: Path, function: str, event: dict, env: dict) -> dict:
    """What the handler answered, the routes it serves, the layer's packages it imported."""
    handler = functions()[function]["Handler"]
    artifact = build_dir / function
    layer = build_dir / "CommonLayer" / "python"
    # -I: ignore PYTHONPATH and user site; -S: no site-packages. Only stdlib + the two dirs.
    # -B: write no bytecode beside them (Lambda's /var/task and /opt are read-only).
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", CLEAN_INTERPRETER, str(artifact), str(layer),
         handler], input=json.dumps(event), capture_output=True, text=True, timeout=120,
        env={"PATH": os.environ["PATH"], **env})
    assert result.returncode == 0, f"{function}: {result.stderr}"
    *log, last = result.stdout.splitlines()
    return {**json.loads(last), "log": [json.loads(line) for line in log]}


def rest_event(method: str, path: str, body: str | None = None) -> dict:
    return {"resource": path, "path": path, "httpMethod": method,
            "headers": {"Host": "abc.execute-api.us-east-1.amazonaws.com"},
            "multiValueHeaders": {}, "queryStringParameters": None,
            "multiValueQueryStringParameters": None, "pathParameters": None,
            "stageVariables": None, "body": body, "isBase64Encoded": False,
            "requestContext": {"resourcePath": path, "httpMethod": method, "stage": "api",
                               "path": f"/api{path}", "requestId": "test",
                               "domainName": "abc.execute-api.us-east-1.amazonaws.com"}}


def test_each_artifact_holds_only_its_own_package(build_dir):
    for function, props in functions().items():
        package = props["Handler"].split(".")[0]
        contents = {p.name for p in (build_dir / function).iterdir()}
        assert contents == {package}, f"{function}: {contents}"


@pytest.fixture(scope="module")
def local_lambda():
    """Lambda's Invoke API, for the orders function's DryRun at init."""
    import logging

    from infra.local.invoke import LocalLambda

    server = LocalLambda({"OrderEventsFunction": lambda event, context: None},
                         logging.getLogger("release")).server.start()
    yield server.url
    server.stop()


@pytest.fixture(scope="module")
def runs(build_dir, emulator, local_lambda):
    """Each function's handler run once on a sample event from its artifact and the layer
    alone, in a clean interpreter, against the emulator."""
    import boto3

    from common.settings import Settings
    from infra.local import LOCAL_AWS_ENV
    from infra.local.tokens import local_token

    client = boto3.client("dynamodb")
    template.drop_tables(client)
    template.create_tables(client)
    aws = {**LOCAL_AWS_ENV, "AWS_ENDPOINT_URL_DYNAMODB": emulator.url,
           "AWS_ENDPOINT_URL_LAMBDA": local_lambda}
    samples = {
        "InventoryFunction": rest_event("GET", "/api/inventario"),
        "OrdersFunction": rest_event("GET", "/api/pedidos"),
        "ShippingFunction": rest_event("GET", "/api/envios"),
        "NotificationFunction": rest_event("POST", "/notificaciones", '{"type":"TEST"}'),
        "AuthorizerFunction": {
            "type": "TOKEN", "authorizationToken": f"Bearer {local_token(Settings())}",
            "methodArn": "arn:aws:execute-api:us-east-1:1:abc/api/GET/api/inventario"},
        "OrderEventsFunction": {"pedidoId": 1, "userEmail": "a@b.co", "total": 1.5,
                                "tipoPedido": "NACIONAL"},
    }
    assert set(functions()) == set(samples)
    return {function: invoke_artifact(build_dir, function, event, aws)
            for function, event in samples.items()}


def test_every_handler_answers_a_sample_event_from_its_artifact(runs):
    for function in ("InventoryFunction", "OrdersFunction", "ShippingFunction",
                     "NotificationFunction"):
        assert runs[function]["result"]["statusCode"] == 200, (function, runs[function])
        # The deployed app serves exactly the routes API Gateway sends it.
        served = {tuple(route) for route in runs[function]["routes"]}
        assert served == function_events(function), function
    assert json.loads(runs["InventoryFunction"]["result"]["body"]) == []
    policy = runs["AuthorizerFunction"]["result"]
    assert policy["policyDocument"]["Statement"][0]["Effect"] == "Allow"
    assert runs["OrderEventsFunction"]["result"] == {"forwarded": False}


# The layer's budget: what the functions import at run time, with its bytecode and
# botocore's data for the services called only (about 17 MB of files), well under what it
# weighed with chalice's command line and every service's model (46 MB of files without
# bytecode; 86 MB as measured with it).
LAYER_BUDGET_MB = 20


def _layer_packages(build_dir: Path) -> set[str]:
    layer = build_dir / "CommonLayer" / "python"
    return {p.name.removesuffix(".py") for p in layer.iterdir()
            if not p.name.endswith(".dist-info") and p.name != "__pycache__"}


def test_every_package_in_the_layer_is_imported_by_some_function(build_dir, runs):
    imported = set().union(*(run["modules"] for run in runs.values()))
    assert _layer_packages(build_dir) == imported
    for tooling in ("pip", "setuptools", "wheel", "click", "yaml", "inquirer", "bin"):
        assert tooling not in _layer_packages(build_dir)


def test_the_layer_fits_its_budget(build_dir):
    layer = build_dir / "CommonLayer" / "python"
    size = sum(path.stat().st_size for path in layer.rglob("*") if path.is_file())
    assert size < LAYER_BUDGET_MB * 1024 * 1024, f"{size / 2**20:.1f} MB"


def test_a_bad_setting_fails_the_functions_init_naming_the_variable(build_dir):
    """On Lambda a failed init is reported and retried, never turned into 500s later."""
    handler = functions()["OrdersFunction"]["Handler"]
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", CLEAN_INTERPRETER,
         str(build_dir / "OrdersFunction"), str(build_dir / "CommonLayer" / "python"), handler],
        input="{}", capture_output=True, text=True, timeout=120,
        env={"PATH": os.environ["PATH"], "BREAKER_FAIL_MAX": "0"})
    assert result.returncode != 0
    assert result.stderr.strip() == ("Configuration error: BREAKER_FAIL_MAX='0': "
                                     "must be an integer >= 1")


def test_every_function_warms_up_at_init_and_leaves_the_cold_start_to_its_first_request(runs):
    for function, run_ in runs.items():
        assert not [line for line in run_["log"] if line["level"] == "WARNING"], function
    rehearsal, first = runs["InventoryFunction"]["log"]
    assert (rehearsal["sub"], rehearsal["status"]) == ("init-rehearsal", 404)
    assert "cold_start" not in rehearsal
    assert first["cold_start"] is True and first["status"] == 200


def _clean_python(code: str, *paths: Path) -> str:
    result = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", code, *map(str, paths)],
                            capture_output=True, text=True, timeout=120,
                            env={"PATH": os.environ["PATH"], "AWS_DEFAULT_REGION": "us-east-1"})
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_botocore_in_the_layer_keeps_the_operations_called_and_nothing_else(build_dir):
    from common.aws import OPERATIONS

    layer = build_dir / "CommonLayer" / "python"
    data = layer / "botocore" / "data"
    assert {path.name for path in data.iterdir() if path.is_dir()} == set(OPERATIONS)
    assert not list(data.rglob("*.gz")), "stored inflated: inflating is part of a cold start"
    built = json.loads(_clean_python(
        "import json, sys; sys.path[:0] = sys.argv[1:]\n"
        "import botocore.session\n"
        "session = botocore.session.get_session()\n"
        f"print(json.dumps({{s: session.create_client(s).meta.service_model.operation_names "
        f"for s in {sorted(OPERATIONS)!r}}}))", layer))
    assert {service: set(names) for service, names in built.items()} == OPERATIONS


def test_every_module_of_the_release_has_bytecode_for_lambdas_python(build_dir):
    runtime = template.load()["Globals"]["Function"]["Runtime"]  # python3.11
    tag = "cpython-" + runtime.removeprefix("python").replace(".", "")
    sources = [path for path in build_dir.rglob("*.py") if "botocore/data" not in str(path)]
    assert len(sources) > 500
    missing = [path for path in sources
               if not (path.parent / "__pycache__" / f"{path.stem}.{tag}.pyc").exists()]
    assert not missing, missing[:5]
