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
# idempotency records, the Lambda invokes, the keys' secrets and their rotation. The
# layer's botocore keeps the models of these and nothing else
# (layers/common/trim_botocore.py): a client is built from its model during every cold
# start, and parsing 60 operations and making each a method, to call a few, is most of
# that cost. A call outside this list would
# fail on Lambda; the integration tests refuse one.
OPERATIONS = {
    "dynamodb": frozenset({"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query",
                           "BatchGetItem", "TransactWriteItems"}),
    "lambda": frozenset({"Invoke"}),
    # The keys' reads, and their rotation (key_rotation).
    "secretsmanager": frozenset({"GetSecretValue", "DescribeSecret", "PutSecretValue",
                                 "UpdateSecretVersionStage"}),
}

_session: botocore.session.Session | None = None
_building = threading.RLock()
_clients: dict = {}  # (service, region, endpoint, ...) -> its client

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
    """The process's DynamoDB client (PynamoDB, Powertools' idempotency and ours)."""
    return _shared("dynamodb", "DYNAMODB", settings, DYNAMODB_CONFIG)


def lambda_client(settings: Settings):
    """The process's Lambda client: quick to give up and never retried inline (the stock
    check's breaker, and the events' sweep, decide what happens next). Publishing and the
    stock check share it, and so its open connection."""
    timeout = settings.stock_check_timeout_seconds
    return _shared("lambda", "LAMBDA", settings, Config(
        connect_timeout=min(1, timeout), read_timeout=timeout,
        retries={"total_max_attempts": 1}), timeout)


def secretsmanager(settings: Settings):
    """The process's Secrets Manager client (keys.py reads the platform's keys with it)."""
    return _shared("secretsmanager", "SECRETS_MANAGER", settings)


def _shared(service: str, endpoint_id: str, settings: Settings, config: Config | None = None,
            *variant) -> object:
    """One client per service for the process. On Lambda that is one each; in the local
    stack and the tests, one per endpoint too (AWS_ENDPOINT_URL_<id>): a client built
    before an emulator's endpoint was set must never be handed out after it."""
    key = (service, settings.region, os.environ.get(f"AWS_ENDPOINT_URL_{endpoint_id}"),
           *variant)
    with _building:
        if key not in _clients:
            _clients[key] = client(service, settings, config)
        return _clients[key]


def use_client(connection, built):
    """Make a PynamoDB connection call through `built` instead of building its own
    client on its first request. PynamoDB has no parameter for it; `_client` is the one
    attribute its `client` property reads."""
    connection._client = built
    return connection
