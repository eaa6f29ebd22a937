"""The local emulation: serialized emulator, tables from the template, the invoke stand-in."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import boto3
import pytest

from common.logs import get_logger
from common.settings import Settings
from infra import template
from infra.local.emulator import OneRequestAtATime
from infra.local.invoke import LocalLambda


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

    app = OneRequestAtATime(racy_conditional_put)
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


@pytest.fixture
def local_lambda():
    received = []
    done = threading.Event()

    def handler(event, context):
        received.append((event, context.function_name, threading.current_thread().name))
        done.set()
        return {"echo": event}

    lam = LocalLambda({"OrderEventsFunction": handler}, get_logger("local-lambda"))
    lam.server.start()
    client = boto3.client("lambda", endpoint_url=lam.server.url, region_name="us-east-1")
    yield client, received, done
    lam.server.stop()


def test_event_invocations_are_accepted_at_once_and_run_in_the_background(local_lambda):
    client, received, done = local_lambda
    response = client.invoke(FunctionName="OrderEventsFunction", InvocationType="Event",
                             Payload=b'{"pedidoId": 1, "total": 19.99}')
    assert response["StatusCode"] == 202
    assert done.wait(5)
    event, name, thread = received[0]
    assert event == {"pedidoId": 1, "total": Decimal("19.99")}
    assert name == "OrderEventsFunction" and thread.startswith("lambda-async")


def test_unknown_functions_are_not_found(local_lambda):
    client, _, _ = local_lambda
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.invoke(FunctionName="Nope", InvocationType="Event", Payload=b"{}")


def test_apps_keep_one_current_request_per_thread():
    from common.http import create_app

    app = create_app("probe", Settings())
    app.current_request = "request of the main thread"
    other = threading.Thread(target=lambda: setattr(app, "current_request", "another request"))
    other.start()
    other.join()
    assert app.current_request == "request of the main thread"


def test_cors_allow_origin_is_honoured_on_success_and_on_errors():
    from chalice import Blueprint
    from chalice.config import Config
    from chalice.test import TestHTTPClient

    from common.errors import Invalid
    from common.http import create_app

    settings = Settings.from_env({"CORS_ALLOW_ORIGIN": "https://ops.example.com"})
    routes = Blueprint("probe")

    @routes.route("/ok")
    def fine():
        return {"ok": True}

    @routes.route("/fail")
    def failing():
        raise Invalid("VALIDATION_ERROR", "no")

    client = TestHTTPClient(create_app("probe", settings, routes), Config.create())
    for path in ("/ok", "/fail"):
        response = client.request("GET", path)
        assert response.headers["Access-Control-Allow-Origin"] == "https://ops.example.com"
    # Every error carries the same CORS headers, whether a view or the edge refused it.
    too_large = client.request("GET", "/ok", body=b"x" * (1024 * 1024 + 1))
    refused = client.request("GET", "/fail")
    assert too_large.status_code == 413 and refused.status_code == 400
    cors = {name for name in refused.headers if name.lower().startswith("access-control")}
    assert cors == {n for n in too_large.headers if n.lower().startswith("access-control")}
