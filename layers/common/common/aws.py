"""AWS clients: one botocore session per process, and each client built once, at init.

Building a client loads endpoint and service data (tens of milliseconds); built on a
request, it is paid by the first request, and when a process starts serving many
requests at once (the local stack) every thread would build its own. So a function
builds what it needs while it starts, from this one session, and shares the clients:
botocore clients are safe to use from many threads, sessions are not safe to build
clients from concurrently (hence the lock).
"""

import os
import threading

import botocore.session
from botocore.config import Config
from botocore.credentials import CredentialResolver, EnvProvider

from common.settings import Settings

# Every AWS operation the functions call, by service: PynamoDB's item calls, Powertools'
# idempotency records, the Lambda invokes, the keys' secrets. The layer's botocore keeps
# the models of these and nothing else (layers/common/trim_botocore.py): a client is
# built from its model during every cold start, and parsing 60 operations and making
# each a method, to call seven, is most of that cost. A call outside this list would
# fail on Lambda; the integration tests refuse one.
OPERATIONS = {
    "dynamodb": frozenset({"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query",
                           "BatchGetItem", "TransactWriteItems"}),
    "lambda": frozenset({"Invoke"}),
    "secretsmanager": frozenset({"GetSecretValue"}),
}

_session: botocore.session.Session | None = None
_building = threading.RLock()
_dynamodb: dict = {}
_lambda: dict = {}
_secretsmanager: dict = {}

# PynamoDB's own client settings (no parameter validation, its retries), with a pool big
# enough for the local stack's concurrency: a full pool logs a warning per request.
DYNAMODB_CONFIG = Config(parameter_validation=False, connect_timeout=15, read_timeout=30,
                         max_pool_connections=64,
                         retries={"total_max_attempts": 4, "mode": "standard"})


def _new_session() -> botocore.session.Session:
    session = botocore.session.get_session()
    environment = EnvProvider()
    if environment.load() is not None:
        # Lambda hands a function its credentials in the environment, for the life of the
        # sandbox. botocore's default chain would also build the container, instance
        # metadata, SSO and config-file providers (HTTP sessions and TLS contexts, a few
        # milliseconds of every cold start) that can then never apply.
        session.register_component("credential_provider", CredentialResolver([environment]))
    return session


def client(service: str, settings: Settings, config: Config | None = None):
    global _session
    with _building:
        if _session is None:
            _session = _new_session()
        return _session.create_client(service, region_name=settings.region, config=config)


def dynamodb(settings: Settings):
    """The process's DynamoDB client: on Lambda one; in the tests, one per endpoint (a
    client built before the emulator's endpoint is set must not be handed out after)."""
    key = (settings.region, os.environ.get("AWS_ENDPOINT_URL_DYNAMODB"))
    with _building:
        if key not in _dynamodb:
            _dynamodb[key] = client("dynamodb", settings, DYNAMODB_CONFIG)
        return _dynamodb[key]


def lambda_client(settings: Settings):
    """The process's Lambda client: quick to give up and never retried inline (the stock
    check's breaker, and the events' sweep, decide what happens next). Publishing and the
    stock check share it, and so its open connection."""
    timeout = settings.stock_check_timeout_seconds
    # On Lambda one client; in the local stack and the tests, one per endpoint and timeout.
    key = (settings.region, timeout, os.environ.get("AWS_ENDPOINT_URL_LAMBDA"))
    with _building:
        if key not in _lambda:
            _lambda[key] = client("lambda", settings, Config(
                connect_timeout=min(1, timeout), read_timeout=timeout,
                retries={"total_max_attempts": 1}))
        return _lambda[key]


def secretsmanager(settings: Settings):
    """The process's Secrets Manager client (keys.py reads the platform's keys with it)."""
    key = (settings.region, os.environ.get("AWS_ENDPOINT_URL_SECRETS_MANAGER"))
    with _building:
        if key not in _secretsmanager:
            _secretsmanager[key] = client("secretsmanager", settings)
        return _secretsmanager[key]


def use_client(connection, built):
    """Make a PynamoDB connection call through `built` instead of building its own
    client on its first request. PynamoDB has no parameter for it; `_client` is the one
    attribute its `client` property reads."""
    connection._client = built
    return connection
