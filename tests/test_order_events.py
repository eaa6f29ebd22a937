"""PedidoAprobadoEvent: the listener function, and the publish on the AWS path (moto)."""

import json
from decimal import Decimal

import pytest
import requests
from moto import mock_aws
from moto.awslambda_simple.models import LambdaSimpleBackend

from order_events import handler as listener
from orders import events
from tests.fakes import closed_port_url

PAYLOAD = {"pedidoId": 12, "userEmail": "ana@example.com", "total": Decimal("59.97"),
           "tipoPedido": "NACIONAL"}


@pytest.fixture
def notification_service():
    """The real notification app on a free port."""
    from infra.local_stack import serve, server_url, stop_server
    from notifications.lambda_app import app

    server = serve(app, 0)
    yield server_url(server)
    stop_server(server)


def logged(caplog, message):
    return [r for r in caplog.records if r.getMessage() == message]


def test_the_listener_logs_the_payload_as_one_json_line(monkeypatch, caplog):
    monkeypatch.delenv("NOTIFICATION_SERVICE_URL", raising=False)
    assert listener.handler(PAYLOAD, None) == {"forwarded": False}
    (record,) = logged(caplog, "PedidoAprobadoEvent")
    line = listener.logger.registered_formatter.format(record)
    assert "\n" not in line
    assert json.loads(line, parse_float=Decimal)["payload"] == PAYLOAD


def test_with_a_notification_url_the_payload_is_forwarded(
        monkeypatch, caplog, notification_service):
    monkeypatch.setenv("NOTIFICATION_SERVICE_URL", notification_service)
    assert listener.handler(PAYLOAD, None) == {"forwarded": True}
    (received,) = logged(caplog, "notification received")
    assert received.payload == PAYLOAD


def test_a_forward_failure_is_logged_and_raised_for_lambda_to_retry(monkeypatch, caplog):
    monkeypatch.setenv("NOTIFICATION_SERVICE_URL", closed_port_url())
    with pytest.raises(requests.ConnectionError):
        listener.handler(PAYLOAD, None)
    assert logged(caplog, "forwarding PedidoAprobadoEvent failed")


@pytest.fixture
def aws_lambda(monkeypatch):
    """moto's Lambda without Docker, recording what each invoke delivered."""
    monkeypatch.delenv("AWS_ENDPOINT_URL_LAMBDA", raising=False)
    monkeypatch.setenv("ORDER_EVENTS_FUNCTION", "logistics-prod-OrderEvents")
    received = []
    original = LambdaSimpleBackend.invoke

    def recording_invoke(self, function_name, qualifier, body, headers, response_headers):
        received.append({"function": function_name, "body": body,
                         "type": headers.get("X-Amz-Invocation-Type")})
        return original(self, function_name, qualifier, body, headers, response_headers)

    monkeypatch.setattr(LambdaSimpleBackend, "invoke", recording_invoke)
    events.forget_clients()
    with mock_aws(config={"lambda": {"use_docker": False}}):
        yield received
    events.forget_clients()


def test_on_aws_the_event_is_an_asynchronous_lambda_invoke(aws_lambda):
    assert events.publish(PAYLOAD) is True
    (call,) = aws_lambda
    assert call["function"] == "logistics-prod-OrderEvents"
    assert call["type"] == "Event"
    assert json.loads(call["body"], parse_float=Decimal) == PAYLOAD

