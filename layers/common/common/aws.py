"""AWS clients: built once per function and process, at init, each knowing whose it is.

Building a client loads endpoint and service data (tens of milliseconds); built on a
request, it is paid by the first request. So a function builds what it needs while it
starts, from one botocore session per process, and keeps it.

Every client is built for a function (its logical id in infra/template.yaml) and tagged
with it: `owner(client)` says whose role its calls are made under, and the tests check
every call against that role (tests/support/iam.py). On Lambda a process runs one
function (`HOME`, set at init). Elsewhere, the tests and `chalice local` run several in
one process: `acting_as(function)` marks the code running for one of them, and
PynamoDB's models, classes the functions that share a table share, call through
`routed_dynamodb()`, which hands each call to the acting function's own client.
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import botocore.session
from botocore.config import Config
from botocore.credentials import CredentialResolver, EnvProvider

from common.settings import Settings

# Every AWS operation the functions call, by service: PynamoDB's item calls, Powertools'
# idempotency records, the Lambda invokes, the keys' secrets and their rotation. The
# layer's botocore keeps the models of these and nothing else
# (layers/common/trim_botocore.py): a client is built from its model during every cold
# start, and parsing 60 operations and making each a method, to call a few, is most of
# that cost. A call outside this list would fail on Lambda; the integration tests refuse
# one.
OPERATIONS = {
    "dynamodb": frozenset(
        {
            "GetItem",
            "PutItem",
            "UpdateItem",
            "DeleteItem",
            "Query",
            "BatchGetItem",
            "TransactWriteItems",
        }
    ),
    "lambda": frozenset({"Invoke"}),
    # The keys' reads, and their rotation (key_rotation).
    "secretsmanager": frozenset(
        {"GetSecretValue", "DescribeSecret", "PutSecretValue", "UpdateSecretVersionStage"}
    ),
}

_session: botocore.session.Session | None = None
_building = threading.RLock()
_clients: dict[tuple[str, str], object] = {}  # (function, service) -> its client
_owners: dict[int, str] = {}  # id(client) -> the function it was built for
_acting: ContextVar[str | None] = ContextVar("acting_function", default=None)
HOME: str | None = None  # the function this process runs, on Lambda


# PynamoDB's own client settings (no parameter validation, its retries), with a pool big
# enough for the local stack's concurrency: a full pool logs a warning per request.
DYNAMODB_CONFIG = Config(
    parameter_validation=False,
    connect_timeout=15,
    read_timeout=30,
    max_pool_connections=64,
    retries={"total_max_attempts": 4, "mode": "standard"},
)


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


def _new_client(service: str, settings: Settings, config: Config | None = None):
    global _session
    with _building:
        if _session is None:
            _session = _new_session()
        return _session.create_client(service, region_name=settings.region, config=config)


@contextmanager
def acting_as(function: str) -> Iterator[None]:
    """Run the code inside for `function`: the clients it builds and the calls PynamoDB
    makes are that function's."""
    token = _acting.set(function)
    try:
        yield
    finally:
        _acting.reset(token)


def acting_function() -> str:
    function = _acting.get() or HOME
    if function is None:
        raise RuntimeError("no function is acting: build and call within aws.acting_as")
    return function


def owner(client) -> str | None:
    """The function a client of ours was built for; None for anyone else's."""
    return _owners.get(id(client))


def clients(service: str) -> list:
    """Every client of one service built so far, whoever's (for tests that count calls)."""
    with _building:
        return [built for (_, kind), built in _clients.items() if kind == service]


def forget() -> None:
    """Build every client afresh from now on (a test that moves an emulator's endpoint)."""
    with _building:
        _clients.clear()
        _owners.clear()


def _own(service: str, settings: Settings, config: Config | None = None):
    key = (acting_function(), service)
    with _building:
        if key not in _clients:
            built = _new_client(service, settings, config)
            _clients[key], _owners[id(built)] = built, key[0]
        return _clients[key]


def dynamodb(settings: Settings):
    """The acting function's DynamoDB client (Powertools' idempotency and ours)."""
    return _own("dynamodb", settings, DYNAMODB_CONFIG)


def lambda_client(settings: Settings):
    """The acting function's Lambda client: quick to give up and never retried inline
    (the stock check's breaker, and the events' sweep, decide what happens next).
    Publishing and the stock check share it, and so its open connection."""
    timeout = settings.stock_check_timeout_seconds
    return _own(
        "lambda",
        settings,
        Config(
            connect_timeout=min(1, timeout), read_timeout=timeout, retries={"total_max_attempts": 1}
        ),
    )


def secretsmanager(settings: Settings):
    """The acting function's Secrets Manager client (keys.py reads the keys with it)."""
    return _own("secretsmanager", settings)


class _Routed:
    """A DynamoDB client that is, at each call, the acting function's own."""

    def __init__(self, settings: Settings):
        self._settings = settings

    def __getattr__(self, name: str):
        return getattr(dynamodb(self._settings), name)


def routed_dynamodb(settings: Settings) -> _Routed:
    return _Routed(settings)


def use_client(connection, built):
    """Make a PynamoDB connection call through `built` instead of building its own
    client on its first request. PynamoDB has no parameter for it; `_client` is the one
    attribute its `client` property reads."""
    connection._client = built
    return connection
