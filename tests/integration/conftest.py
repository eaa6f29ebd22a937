"""Fixtures for tests against emulated AWS (tables from the root conftest): the apps,
built per test from the settings' slices as a function builds them at init, and their
neighbours."""

import threading

import pytest

from common.platform.logs import get_logger
from common.platform.settings import AllSettings, Http, Peers
from tests.support.api import Api, gateway_api, notification_api
from tests.support.endpoints import point
from tests.support.settings import every

# A call between services (the stock check over HTTP, in this process) waits up to 10 s,
# not 2: on a loaded machine a healthy inventory answered a stock check after 2 s, and
# the order was refused as unconfirmed. Tests of the timeout set their own.
PATIENT_CALLS = {"STOCK_CHECK_TIMEOUT_SECONDS": "10"}


@pytest.fixture(scope="session")
def served_gateway(emulator):
    """The gateway served over real HTTP in this process, for the calls one service makes
    to another (a new shipment asks the orders service whose order it is)."""
    from app import create_gateway
    from tests.support.served_app import serve

    server = serve(create_gateway(AllSettings.from_env()))
    yield server.url
    server.stop()


@pytest.fixture
def gateway(tables, served_gateway):
    """Builds the gateway app, as the local stack would, from settings with these variables."""

    def build(**env) -> Api:
        return gateway_api(every(**{"ORDERS_SERVICE_URL": served_gateway, **PATIENT_CALLS, **env}))

    return build


@pytest.fixture
def api(gateway) -> Api:
    """The gateway app through chalice.test's client, with a valid bearer token."""
    return gateway()


@pytest.fixture
def notifications() -> Api:
    return notification_api(Http.from_env())


class EventRecorder:
    """The order-events function as the orders service reaches it: a real invoke endpoint."""

    def __init__(self):
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
    """Order events land in a recorder; apps built after this publish to it."""
    from tests.support.fake_lambda import LocalLambda

    recorder = EventRecorder()
    invoker = LocalLambda(
        {Peers().order_events_function: recorder.handle}, get_logger("local-lambda")
    )
    invoker.server.start()
    point(monkeypatch, "LAMBDA", invoker.server.url)
    yield recorder
    invoker.server.stop()


@pytest.fixture
def inventory_gateway(tables):
    """The gateway served over real HTTP in this process: the stock check's target."""
    from app import create_gateway
    from tests.support.served_app import serve

    server = serve(create_gateway(AllSettings.from_env()))
    yield server.url
    server.stop()


@pytest.fixture
def orders_gateway(gateway, order_events, inventory_gateway):
    """Builds a gateway whose stock check reaches inventory over HTTP (the recorder of
    order events first: clients are built once per function, with the endpoints of then)."""

    def build(**env) -> Api:
        return gateway(**{"INVENTORY_SERVICE_URL": inventory_gateway, **env})

    return build


@pytest.fixture
def orders_api(orders_gateway) -> Api:
    return orders_gateway()


@pytest.fixture(autouse=True)
def only_calls_the_layer_and_the_role_allow(monkeypatch):
    """Every AWS call the functions' own clients make here is one the layer's botocore
    keeps (common.platform.aws.OPERATIONS): on Lambda any other would fail, having no model. And
    each is allowed by the role of the function its client was built for (common.platform.aws
    tags each; infra/template.yaml, tests/support/iam.py): the emulator enforces no IAM,
    AWS does."""
    from botocore.client import BaseClient
    from pynamodb.connection import Connection

    from common.platform import aws
    from infra import template
    from tests.support import iam

    aws.forget()  # this test's endpoints, never a client built for another's
    # The roles are read from the template once per process, here: not by the threads of
    # a test's first calls all at once (sixteen parsing it together took seconds).
    template.load()
    # PynamoDB's clients (its connections', which every function's models share here)
    # make their calls for whichever function is acting; the tests' own clients, none.
    pynamodbs: set[int] = set()
    built = Connection.client

    def noted(connection):
        client = built.fget(connection)
        pynamodbs.add(id(client))
        return client

    monkeypatch.setattr(Connection, "client", property(noted))
    calls: list[tuple[str, str, dict]] = []  # (service, operation, parameters), for aws_calls
    refused: list[tuple[str, iam.Access]] = []
    broken: list[str] = []  # the checker's own errors: never raised into the function's call
    make_call = BaseClient._make_api_call

    def recording(client, operation, params):
        function = aws.owner(client) or (
            aws.acting_function_or_none() if id(client) in pynamodbs else None
        )
        if function is not None:
            service = client.meta.service_model.service_name
            calls.append((service, operation, params))
            try:
                if operation in aws.OPERATIONS.get(service, ()):
                    refused.extend(
                        (function, access)
                        for access in iam.accesses(service, operation, params)
                        if not iam.allows(function, access)
                    )
            except Exception as exc:  # noqa: BLE001 - reported at teardown
                broken.append(f"{service}.{operation}: {exc!r}")
        return make_call(client, operation, params)

    monkeypatch.setattr(BaseClient, "_make_api_call", recording)
    yield calls
    # Calls a background thread makes after this point (a late invoke) go unchecked.
    unknown = {
        (service, operation)
        for service, operation, _ in calls
        if operation not in aws.OPERATIONS.get(service, ())
    }
    assert not unknown, f"calls the layer's botocore cannot make: {sorted(unknown)}"
    assert not broken, f"the role check failed: {broken}"
    assert not refused, f"calls the function's role does not allow: {refused}"


@pytest.fixture
def aws_calls(only_calls_the_layer_and_the_role_allow) -> list[tuple[str, str, dict]]:
    """Every AWS call the functions' own clients make from here on (not the test's):
    (service, operation, parameters); clear it to start counting afresh."""
    return only_calls_the_layer_and_the_role_allow


@pytest.fixture
def pool(emulator):
    """The template's user pool in the emulator, made when it is missing: its users are
    each test's own. Looked for at every test, not kept for the session: a test of moto's
    own mocks, ending, clears every backend of the process, the emulator's pool too (a
    later test then registered against a pool that was gone: 503)."""
    import boto3

    from infra import template
    from infra.local.sign_in import POOL_NAME, find_pool

    client = boto3.client("cognito-idp", endpoint_url=emulator.url)
    if not any(p["Name"] == POOL_NAME for p in client.list_user_pools(MaxResults=60)["UserPools"]):
        template.create_user_pool(client)
    return find_pool(emulator.url, client.meta.region_name)


@pytest.fixture
def signing_in(gateway, pool, monkeypatch):
    """The gateway with the pool: its sign-in routes, and its authorizer taking its tokens."""
    point(monkeypatch, "COGNITO_IDENTITY_PROVIDER", pool.url)
    return gateway(**pool.environment())
