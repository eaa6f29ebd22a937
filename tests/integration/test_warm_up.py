"""Each function's warm-up at init (lambda_init.warm_up): it answers a request that changes
nothing and leaves the cold start to the first client request."""

import json

import boto3
import pytest
from aws_lambda_powertools.logging import logger as powertools_logger

from common.http.service_app import create_app
from common.platform.lambda_init import REHEARSAL
from common.platform.settings import AllSettings, Http, Peers
from tests.support.fake_lambda import lambda_context
from tests.support.logs import captured_lines
from tests.support.settings import built, every


def everything_stored(client) -> dict[str, list]:
    return {
        name: client.scan(TableName=name)["Items"] for name in client.list_tables()["TableNames"]
    }


def service_app(service: str, settings: AllSettings):
    """The app as the function's lambda_app builds it, and its wiring's rehearsal (given
    the slices it takes, as lambda_init gives them)."""
    wiring = __import__(f"{service}.wiring", fromlist=["routes_for", "rehearse"])
    app = create_app(service, settings.http, built(wiring.routes_for, settings))
    return app, lambda app: wiring.rehearse(app, **settings.arguments(wiring.rehearse))


@pytest.mark.parametrize(
    "service, route",
    [
        ("inventory", "/api/inventario/{id}"),
        ("orders", "/api/pedidos/{id}"),
        ("shipping", "/api/envios/{id}"),
    ],
)
def test_a_services_rehearsal_reads_one_item_no_one_has_and_changes_nothing(
    tables, service, route, aws_calls
):
    app, rehearse = service_app(service, every())
    before = everything_stored(tables)
    aws_calls.clear()
    with captured_lines(app.logger) as lines:
        rehearse(app)
    assert everything_stored(tables) == before
    (line,) = lines
    assert (line["route"], line["status"], line["sub"]) == (route, 404, REHEARSAL)
    # One read, by key: what opens the connection, not a page's sixteen shard queries;
    # and no invoke (the orders' DryRun cost init more than it saved the first order).
    assert [operation for _, operation, _ in aws_calls] == ["GetItem"]


def test_the_users_rehearsal_reads_a_person_no_one_is_and_records_no_request(tables, aws_calls):
    """The data of a userId no one has: its claim and its customer indexes read (the
    connection open, the path run); the platform's own warm-up is no one's rights
    request, so the record holds nothing of it and no request id is taken."""
    app, rehearse = service_app("users", every())
    before = everything_stored(tables)
    aws_calls.clear()
    with captured_lines(app.logger) as lines:
        rehearse(app)
    assert everything_stored(tables) == before
    (line,) = lines
    assert (line["route"], line["status"]) == ("/api/usuarios/{userId}/datos", 200)
    # ... and, by key, a request no one made and the requests' counter: the connections
    # the first request's record writes through, open.
    assert sorted(operation for _, operation, _ in aws_calls) == [
        "GetItem",
        "GetItem",
        "GetItem",
        "Query",
        "Query",
        "Query",
    ]


def test_a_dry_run_invoke_is_answered_204_and_runs_nothing(order_events):
    client = boto3.client("lambda")
    answer = client.invoke(FunctionName=Peers().order_events_function, InvocationType="DryRun")
    assert answer["StatusCode"] == 204
    assert order_events.wait_for(1, timeout=0.5) == []


def test_the_notification_rehearsal_is_refused_and_never_logged_as_received():
    from notifications.wiring import create, rehearse

    app = create(Http.from_env())
    with captured_lines(app.logger) as lines:
        rehearse(app)
    assert [line["status"] for line in lines] == [400]
    assert not [line for line in lines if line.get("event") == "notification received"]


def test_the_first_client_request_after_a_rehearsal_is_still_the_cold_start(tables, monkeypatch):
    """Operators read cold starts off the request log: the rehearsal is not one."""
    monkeypatch.setattr(powertools_logger, "is_cold_start", True)
    app, rehearse = service_app("inventory", every())
    rehearse(app)
    event = {
        "resource": "/api/inventario",
        "path": "/api/inventario",
        "httpMethod": "GET",
        "headers": {},
        "multiValueHeaders": {},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "stageVariables": None,
        "body": None,
        "isBase64Encoded": False,
        "requestContext": {
            "resourcePath": "/api/inventario",
            "httpMethod": "GET",
            "path": "/api/inventario",
            "requestId": "first",
            "authorizer": {"sub": "ana"},
        },
    }
    with captured_lines(app.logger) as lines:
        answer = app(event, lambda_context("InventoryFunction"))
    assert answer["statusCode"] == 200 and json.loads(answer["body"]) == []
    (line,) = lines
    assert line["cold_start"] is True and line["correlation_id"] == "first"


def test_a_rehearsal_that_fails_on_the_server_side_raises(monkeypatch, tables):
    """So that warm_up reports it: a 5xx is not a warm path."""
    app, rehearse = service_app("inventory", every())

    def broken(*args, **kwargs):
        raise OSError("table unreachable")

    from inventory.repository import ProductRepository

    monkeypatch.setattr(ProductRepository, "get", broken)
    with pytest.raises(RuntimeError, match="answered 500"):
        rehearse(app)
