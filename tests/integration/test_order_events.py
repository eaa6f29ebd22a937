"""PedidoAprobadoEvent: the listener function, and the publish on the AWS path (moto)."""

import json
from decimal import Decimal

import pytest
from moto import mock_aws
from moto.awslambda_simple.models import LambdaSimpleBackend

from common.orders.outbox import LambdaPublisher
from common.platform import aws
from common.platform.logs import get_logger
from common.platform.settings import AllSettings, Cloud, Http, Peers
from order_events.listener import SERVICE, NotForwarded
from tests.support.fake_lambda import lambda_context
from tests.support.fakes import closed_port_url
from tests.support.settings import built

PAYLOAD = {
    "pedidoId": 12,
    "userEmail": "ana@example.com",
    "total": Decimal("59.97"),
    "tipoPedido": "NACIONAL",
}
logger = get_logger(SERVICE)


def listener(**env):
    """The Lambda handler as the function builds it at init, from these variables."""
    from order_events import wiring

    return built(wiring.create, AllSettings.from_env(env))


@pytest.fixture
def notification_service():
    """The real notification app on a free port."""
    from notifications.wiring import create as app_for
    from tests.support.served_app import serve

    server = serve(app_for(Http()))
    yield server.url
    server.stop()


@pytest.fixture(autouse=True)
def fresh_tables(tables):
    """The listener remembers each order it handled: every test starts with none."""


def logged(caplog, message):
    return [r for r in caplog.records if r.getMessage() == message]


def test_the_listener_logs_the_payload_as_one_json_line(caplog):
    assert listener()(PAYLOAD, lambda_context("OrderEvents")) == {"forwarded": False}
    (record,) = logged(caplog, "PedidoAprobadoEvent")
    line = logger.registered_formatter.format(record)
    assert "\n" not in line
    logged_line = json.loads(line, parse_float=Decimal)
    # Whole, but for the person's email: no log line holds personal data
    # (docs/personal-data.md).
    assert logged_line["payload"] == {**PAYLOAD, "userEmail": "[redacted]"}
    assert logged_line["forwarded"] is False
    assert logged_line["function_request_id"]


def test_with_a_notification_url_the_payload_is_forwarded(caplog, notification_service):
    handler = listener(NOTIFICATION_SERVICE_URL=notification_service)
    assert handler(PAYLOAD, lambda_context("OrderEvents")) == {"forwarded": True}
    (received,) = [r for r in caplog.records if r.name == "notifications"]
    assert (received.path, received.status) == ("/notificaciones", 200)


def test_a_forward_failure_is_logged_and_raised_for_lambda_to_retry(caplog):
    handler = listener(NOTIFICATION_SERVICE_URL=closed_port_url())
    with pytest.raises(NotForwarded):
        handler(PAYLOAD, lambda_context("OrderEvents"))
    assert logged(caplog, "PedidoAprobadoEvent not forwarded")
    assert not logged(caplog, "PedidoAprobadoEvent")


def test_the_same_event_delivered_twice_is_handled_and_forwarded_once(caplog, notification_service):
    handler = listener(NOTIFICATION_SERVICE_URL=notification_service)
    first = handler(PAYLOAD, lambda_context("OrderEvents"))
    second = handler(dict(PAYLOAD), lambda_context("OrderEvents"))
    assert first == second == {"forwarded": True}
    assert len(logged(caplog, "PedidoAprobadoEvent")) == 1
    assert len(logged(caplog, "PedidoAprobadoEvent already handled")) == 1
    forwarded = [r for r in caplog.records if r.name == "notifications"]
    assert len(forwarded) == 1
    # Another order's event is its own.
    handler({**PAYLOAD, "pedidoId": 13}, lambda_context("OrderEvents"))
    assert len(logged(caplog, "PedidoAprobadoEvent")) == 2


def test_a_failed_delivery_is_not_remembered(caplog, notification_service):
    """Lambda's retry of an event whose forward failed must forward it."""
    with pytest.raises(NotForwarded):
        listener(NOTIFICATION_SERVICE_URL=closed_port_url())(PAYLOAD, lambda_context("OrderEvents"))
    retried = listener(NOTIFICATION_SERVICE_URL=notification_service)(
        PAYLOAD, lambda_context("OrderEvents")
    )
    assert retried == {"forwarded": True}


@pytest.fixture
def aws_lambda(monkeypatch):
    """moto's Lambda without Docker, recording what each invoke delivered."""
    monkeypatch.delenv("AWS_ENDPOINT_URL_LAMBDA", raising=False)
    received = []
    original = LambdaSimpleBackend.invoke

    def recording_invoke(self, function_name, qualifier, body, headers, response_headers):
        received.append(
            {"function": function_name, "body": body, "type": headers.get("X-Amz-Invocation-Type")}
        )
        return original(self, function_name, qualifier, body, headers, response_headers)

    monkeypatch.setattr(LambdaSimpleBackend, "invoke", recording_invoke)
    with mock_aws(config={"lambda": {"use_docker": False}}):
        yield received


def test_on_aws_the_event_is_an_asynchronous_lambda_invoke(aws_lambda, caplog):
    deployed_name = "logistics-prod-OrderEventsFunction-1A2B3C4D5E6F"  # CloudFormation's
    with aws.acting_as("OrdersFunction"):
        publisher = LambdaPublisher(
            Cloud.from_env(), Peers.from_env({"ORDER_EVENTS_FUNCTION": deployed_name}), logger
        )
        publisher.publish(PAYLOAD)
    assert not logged(caplog, "PedidoAprobadoEvent not published")
    (call,) = aws_lambda
    assert call["function"] == deployed_name
    assert call["type"] == "Event"
    assert json.loads(call["body"], parse_float=Decimal) == PAYLOAD
