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
