"""Fixtures shared by every test: the DynamoDB emulator, fresh tables, HTTP clients.

Storage tests run against the same locked moto server the local stack uses (not an
in-process mock), so what they prove about conditional writes holds for `make run`.
"""

import os

import pytest

from infra.local_stack import LOCAL_AWS_ENV

for _key, _value in LOCAL_AWS_ENV.items():
    os.environ.setdefault(_key, _value)

from tests.support import Api, gateway_api, notification_api  # noqa: E402


@pytest.fixture(scope="session")
def emulator():
    from infra.emulator import Emulator

    emu = Emulator().start()
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = emu.url
    yield emu
    emu.stop()


@pytest.fixture
def tables(emulator):
    """Every table of infra/template.yaml, empty, for this test alone."""
    import boto3

    from infra import template

    client = boto3.client("dynamodb")
    template.drop_tables(client)
    template.create_tables(client)
    return client


@pytest.fixture
def api(tables) -> Api:
    """The gateway app through chalice.test's client, with a valid bearer token."""
    return gateway_api()


@pytest.fixture
def notifications() -> Api:
    return notification_api()


@pytest.fixture(scope="session")
def stack():
    """The real local stack over HTTP, shared by the black-box tests of one run."""
    from tests.stack import RunningStack

    running = RunningStack().start()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def http(stack):
    from tests.stack import Client, token

    return Client(stack, token())


class EventRecorder:
    """The order-events function as the orders service reaches it: a real invoke endpoint."""

    def __init__(self):
        import threading

        self.events: list[dict] = []
        self._arrived = threading.Condition()

    def handle(self, event, context):
        with self._arrived:
            self.events.append(event)
            self._arrived.notify_all()

    def wait_for(self, count: int, timeout: float = 5.0) -> list[dict]:
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.events) >= count, timeout)
        return list(self.events)


@pytest.fixture
def order_events(monkeypatch):
    from common import config
    from infra.local_lambda import LocalLambda

    recorder = EventRecorder()
    invoker = LocalLambda({config.order_events_function(): recorder.handle}).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL_LAMBDA", invoker.url)
    yield recorder
    invoker.stop()


@pytest.fixture
def fresh_breaker():
    """Each test gets a breaker built from its own environment, and leaves none behind."""
    from orders import stock_client

    stock_client.reset_checker()
    yield
    stock_client.reset_checker()


@pytest.fixture
def inventory_gateway(tables, monkeypatch, fresh_breaker):
    """The gateway served over real HTTP in this process: the stock check's target."""
    from app import app
    from infra.local_stack import serve, server_url, stop_server

    server = serve(app, 0)
    monkeypatch.setenv("INVENTORY_SERVICE_URL", server_url(server))
    yield server_url(server)
    stop_server(server)


@pytest.fixture
def orders_api(api, inventory_gateway, order_events) -> Api:
    return api
