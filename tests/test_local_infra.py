"""The local emulation: serialized emulator, tables from the template, the invoke stand-in."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest

from common import config
from infra import template
from infra.emulator import _OneRequestAtATime
from infra.local_lambda import LocalLambda


def test_the_emulator_wrapper_makes_check_then_write_atomic():
    """moto checks a condition and writes in two steps; the wrapper must not let two
    requests interleave there. A deliberately racy app shows the difference."""
    store = {}

    def racy_conditional_put(environ, start_response):
        key = environ["KEY"]
        exists = key in store
        time.sleep(0.01)  # the window in which another thread could pass the same check
        if not exists:
            store.setdefault(key, []).append(threading.get_ident())
        start_response("200 OK", [])
        return [b"ok"]

    app = _OneRequestAtATime(racy_conditional_put)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: app({"KEY": "sku"}, lambda *a: None), range(8)))
    assert len(store["sku"]) == 1


def test_tables_are_created_from_the_template(tables):
    declared = template.tables()
    assert set(declared) >= {"ProductsTable", "ProductSkusTable", "CountersTable"}
    for name, props in declared.items():
        described = tables.describe_table(TableName=name)["Table"]
        assert described["KeySchema"] == props["KeySchema"]
        assert described["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"


def test_table_env_var_names():
    assert config.table_env_var("ProductsTable") == "PRODUCTS_TABLE"
    assert config.table_env_var("ProductSkusTable") == "PRODUCT_SKUS_TABLE"


def test_table_names_follow_their_environment_variable(monkeypatch):
    monkeypatch.setenv("PRODUCTS_TABLE", "prod-products-abc")
    assert config.table_name("ProductsTable") == "prod-products-abc"
    monkeypatch.delenv("PRODUCTS_TABLE")
    assert config.table_name("ProductsTable") == "ProductsTable"


@pytest.mark.parametrize("name, value", [("BREAKER_FAIL_MAX", "zero"), ("BREAKER_FAIL_MAX", "0"),
                                         ("BREAKER_RESET_SECONDS", "-1"),
                                         ("STOCK_CHECK_TIMEOUT_SECONDS", "soon")])
def test_unusable_settings_are_refused_with_the_variable_named(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    getter = getattr(config, name.lower())
    with pytest.raises(config.ConfigError, match=name):
        getter()


@pytest.fixture
def local_lambda():
    received = []
    done = threading.Event()

    def handler(event, context):
        received.append((event, context.function_name, threading.current_thread().name))
        done.set()
        return {"echo": event}

    lam = LocalLambda({"OrderEventsFunction": handler}).start()
    client = boto3.client("lambda", endpoint_url=lam.url, region_name="us-east-1")
    yield client, received, done
    lam.stop()


def test_event_invocations_are_accepted_at_once_and_run_in_the_background(local_lambda):
    client, received, done = local_lambda
    response = client.invoke(FunctionName="OrderEventsFunction", InvocationType="Event",
                             Payload=b'{"pedidoId": 1, "total": 19.99}')
    assert response["StatusCode"] == 202
    assert done.wait(5)
    event, name, thread = received[0]
    assert event == {"pedidoId": 1, "total": __import__("decimal").Decimal("19.99")}
    assert name == "OrderEventsFunction" and thread.startswith("lambda-async")


def test_unknown_functions_are_not_found(local_lambda):
    client, _, _ = local_lambda
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.invoke(FunctionName="Nope", InvocationType="Event", Payload=b"{}")


def test_served_apps_keep_one_current_request_per_thread():
    from chalice import Chalice

    from infra.local_gateway import thread_safe

    app = thread_safe(Chalice("probe"))
    app.current_request = "request of the main thread"
    other = threading.Thread(target=lambda: setattr(app, "current_request", "another request"))
    other.start()
    other.join()
    assert app.current_request == "request of the main thread"


def test_cors_allow_origin_is_honoured_on_success_and_on_errors(monkeypatch):
    from chalice import Blueprint
    from chalice.config import Config
    from chalice.test import TestHTTPClient

    from common.errors import ApiError
    from common.http import create_app

    monkeypatch.setenv("CORS_ALLOW_ORIGIN", "https://ops.example.com")
    routes = Blueprint("probe")

    @routes.route("/ok")
    def fine():
        return {"ok": True}

    @routes.route("/fail")
    def failing():
        raise ApiError(400, "VALIDATION_ERROR", "no")

    client = TestHTTPClient(create_app("probe", routes), Config.create())
    for path in ("/ok", "/fail"):
        response = client.request("GET", path)
        assert response.headers["Access-Control-Allow-Origin"] == "https://ops.example.com"
