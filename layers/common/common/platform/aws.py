"""AWS clients: built once per function and process, at init, each knowing whose it is.

Building a client loads endpoint and service data (a few milliseconds each, more for
the session's first); built on a request, it is paid by the first request. So a function
builds what its requests need while it starts, from one botocore session per process,
and keeps it. The exception is a client few requests need: the page-token key's Secrets
Manager client is built at the key's first read (common.platform.keys), by a list's pages only.
(PynamoDB builds its models' clients itself, from sessions of its own: storage.bind
gives it the Cloud slice.)

Every client is built for a function (its logical id in infra/template.yaml) and tagged
with it: `owner(client)` says whose role its calls are made under, and the tests check
every call against that role (tests/support/iam.py). On Lambda a process runs one
function (`HOME`, set at init). Elsewhere, the tests and `chalice local` run several in
one process: `acting_as(function)` marks the code running for one of them
(`acting_function_or_none` says which, for a call of a client that is not ours).
"""

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import botocore.session
from botocore.config import Config
from botocore.credentials import CredentialResolver, EnvProvider
from snapshot_restore_py import register_after_restore

from common.platform.settings import Cloud, Peers

# Every AWS operation the functions call, by service: PynamoDB's item calls, Powertools'
# idempotency records, the Lambda invokes, the webhooks' queue, the keys' secrets and
# their rotation. The
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
    # Sign-in (functions/auth): creating a customer, and a password's check; the
    # authorizer's check that a token's account is still there and enabled; revoking an
    # account's tokens (common.identity.accounts.revoke); a person's account corrected and
    # deleted (functions/users, functions/erasure).
    "cognito-idp": frozenset(
        {
            "AdminCreateUser",
            "AdminSetUserPassword",
            "AdminDeleteUser",
            "AdminInitiateAuth",
            "AdminGetUser",
            "AdminDisableUser",
            "AdminUserGlobalSignOut",
            "AdminUpdateUserAttributes",
        }
    ),
    # The webhooks' delivery queue: events and re-sends put messages on it; the delivery
    # function sets when a failed one is tried again. The erasure queue likewise.
    "sqs": frozenset({"SendMessage", "SendMessageBatch", "ChangeMessageVisibility"}),
    # The keys' reads, and their rotation (key_rotation).
    "secretsmanager": frozenset(
        {"GetSecretValue", "DescribeSecret", "PutSecretValue", "UpdateSecretVersionStage"}
    ),
    # The webhooks' secrets at rest: encrypted when issued, decrypted to sign a delivery.
    "kms": frozenset({"Encrypt", "Decrypt"}),
}

_session: botocore.session.Session | None = None
_building = threading.RLock()
_clients: dict[tuple[str, str], object] = {}  # (function, service) -> its client
_owners: dict[int, str] = {}  # id(client) -> the function it was built for
_acting: ContextVar[str | None] = ContextVar("acting_function", default=None)
HOME: str | None = None  # the function this process runs, on Lambda


# PynamoDB's own client settings (no parameter validation, its retries), with a pool big
# enough for a page's parallel shard reads: a full pool logs a warning per request. The
# same for PynamoDB's clients (its Meta's names) and for ours.
PYNAMODB_CLIENT: dict[str, int] = {
    "connect_timeout_seconds": 15,
    "read_timeout_seconds": 30,
    "max_pool_connections": 64,
    "max_retry_attempts": 3,  # after the first: 4 in all
}
DYNAMODB_CONFIG = Config(
    parameter_validation=False,
    connect_timeout=PYNAMODB_CLIENT["connect_timeout_seconds"],
    read_timeout=PYNAMODB_CLIENT["read_timeout_seconds"],
    max_pool_connections=PYNAMODB_CLIENT["max_pool_connections"],
    retries={"total_max_attempts": 1 + PYNAMODB_CLIENT["max_retry_attempts"], "mode": "standard"},
)


def _closed_connections() -> None:
    """After a restore from a snapshot (common.platform.restore): the connections our clients
    opened at init are dead (on AWS) or shared with other environments (locally); each
    client opens new ones at its next call."""
    with _building:
        for client in _clients.values():
            client.close()  # type: ignore[attr-defined]


register_after_restore(_closed_connections)


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


def _new_client(service: str, cloud: Cloud, config: Config | None = None) -> Any:
    global _session
    with _building:
        if _session is None:
            _session = _new_session()
        return _session.create_client(service, region_name=cloud.region, config=config)


@contextmanager
def acting_as(function: str) -> Iterator[None]:
    """Run the code inside for `function`: the clients it builds and the calls PynamoDB
    makes are that function's."""
    token = _acting.set(function)
    try:
        yield
    finally:
        _acting.reset(token)


def acting_function_or_none() -> str | None:
    return _acting.get() or HOME


def acting_function() -> str:
    function = acting_function_or_none()
    if function is None:
        raise RuntimeError("no function is acting: build and call within aws.acting_as")
    return function


def environment_credentials() -> dict[str, str]:
    """The credentials in the environment (Lambda's), by PynamoDB's Meta names; none
    elsewhere, where botocore finds them as it does."""
    found = {
        "aws_access_key_id": os.environ.get("AWS_ACCESS_KEY_ID"),
        "aws_secret_access_key": os.environ.get("AWS_SECRET_ACCESS_KEY"),
        "aws_session_token": os.environ.get("AWS_SESSION_TOKEN"),
    }
    if not (found["aws_access_key_id"] and found["aws_secret_access_key"]):
        return {}
    return {name: value for name, value in found.items() if value}


def owner(client: object) -> str | None:
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


def _own(service: str, cloud: Cloud, config: Config | None = None) -> Any:
    key = (acting_function(), service)
    with _building:
        if key not in _clients:
            built = _new_client(service, cloud, config)
            _clients[key], _owners[id(built)] = built, key[0]
        return _clients[key]


def dynamodb(cloud: Cloud) -> Any:
    """The acting function's DynamoDB client (Powertools' idempotency and ours)."""
    return _own("dynamodb", cloud, DYNAMODB_CONFIG)


def lambda_client(cloud: Cloud, peers: Peers) -> Any:
    """The acting function's Lambda client: quick to give up and never retried inline
    (the stock check's breaker, and the events' sweep, decide what happens next).
    Publishing and the stock check share it, and so its open connection."""
    timeout = peers.stock_check_timeout_seconds
    return _own(
        "lambda",
        cloud,
        Config(
            connect_timeout=min(1, timeout), read_timeout=timeout, retries={"total_max_attempts": 1}
        ),
    )


def sqs(cloud: Cloud) -> Any:
    """The acting function's SQS client (the webhooks' delivery queue)."""
    return _own("sqs", cloud, Config(connect_timeout=2, read_timeout=10))


def kms(cloud: Cloud) -> Any:
    """The acting function's KMS client (the webhooks' secrets, common.webhooks.vault): a
    delivery or a create waits on it, so it gives up soon and retries once."""
    return _own(
        "kms",
        cloud,
        Config(connect_timeout=2, read_timeout=5, retries={"total_max_attempts": 2}),
    )


def secretsmanager(cloud: Cloud) -> Any:
    """The acting function's Secrets Manager client (keys.py reads the keys with it)."""
    return _own("secretsmanager", cloud)


# A sign-in waits on the pool at most this long: an answer within API Gateway's 29 s, and a
# slow pool seen as down (503) rather than as a hung request. Retried once (botocore's
# standard mode backs off): a throttled pool often answers the second time.
COGNITO_CONFIG = Config(
    connect_timeout=2, read_timeout=5, retries={"total_max_attempts": 2, "mode": "standard"}
)


def cognito(cloud: Cloud) -> Any:
    """The acting function's Cognito user pools client (functions/auth, the authorizer)."""
    return _own("cognito-idp", cloud, COGNITO_CONFIG)


# What DynamoDB (and the other services) answer a request over a table's or a key's
# capacity, or an account's rate: load, never the caller's request, so 503, not 500.
THROTTLES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "TooManyRequestsException",
    }
)


def throttled(exc: BaseException | None) -> bool:
    """Whether `exc`, or what caused it (PynamoDB wraps botocore's), is a throttle."""
    seen = 0
    while exc is not None and seen < 10:
        response = getattr(exc, "response", None)
        code = response.get("Error", {}).get("Code") if isinstance(response, dict) else None
        if (code or getattr(exc, "cause_response_code", None)) in THROTTLES:
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False
