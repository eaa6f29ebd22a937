"""AWS clients: one botocore session per process, and each client built once, at init.

Building a client loads endpoint and service data (tens of milliseconds); built on a
request, it is paid by the first request, and when a process starts serving many
requests at once (the local stack) every thread would build its own. So a function
builds what it needs while it starts, from this one session, and shares the clients:
botocore clients are safe to use from many threads, sessions are not safe to build
clients from concurrently (hence the lock).
"""

import threading

import botocore.session
from botocore.config import Config

from common.settings import Settings

_session: botocore.session.Session | None = None
_building = threading.RLock()
_dynamodb: dict = {}

# PynamoDB's own client settings (no parameter validation, its retries), with a pool big
# enough for the local stack's concurrency: a full pool logs a warning per request.
DYNAMODB_CONFIG = Config(parameter_validation=False, connect_timeout=15, read_timeout=30,
                         max_pool_connections=64,
                         retries={"total_max_attempts": 4, "mode": "standard"})


def client(service: str, settings: Settings, config: Config | None = None):
    global _session
    with _building:
        if _session is None:
            _session = botocore.session.get_session()
        return _session.create_client(service, region_name=settings.region, config=config)


def dynamodb(settings: Settings):
    """The process's DynamoDB client (one per region)."""
    with _building:
        if settings.region not in _dynamodb:
            _dynamodb[settings.region] = client("dynamodb", settings, DYNAMODB_CONFIG)
        return _dynamodb[settings.region]


def use_client(connection, built):
    """Make a PynamoDB connection call through `built` instead of building its own
    client on its first request. PynamoDB has no parameter for it; `_client` is the one
    attribute its `client` property reads."""
    connection._client = built
    return connection
