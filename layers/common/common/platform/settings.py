"""Every environment variable the platform reads, in slices, each read and checked once at
start.

A function takes the slices its code reads and nothing else: its wiring's `create`
names them in its parameters' annotations (`create(cloud: Cloud, http: Http)`), and its
init (common.platform.lambda_init) builds exactly those, from the environment, before
anything else. No code of ours reads the environment later (botocore reads its own
endpoint and credential variables when a client is built). A value that cannot work
stops the process there, in one line naming the variable and what it accepts
(common.platform.env), instead of turning into a 500 on some later request.

The slices are cut by who reads them, not by what the variables look like:
- Cloud: the region and the tables, read by every AWS client and table binding;
- Logs: the log level, read by Powertools itself; checked by every function's init;
- Http: what every API's app reads (its CORS origin, the docs its GET / names);
- Idempotency: how long a create is remembered (the APIs that create, the order events);
- Pages: a list's page tokens' key and its largest body (the APIs that list);
- Tokens and Pool: the tokens' keys and issuer, and the user pool (the authorizer, sign-in,
  the personal data);
- Peers: where the other functions are and how long a call to one waits (the Lambda
  client's timeout, so every caller's: the stock check, a shipment's order, the events);
- Breaker: when the calls to the inventory give up (orders, shipping, the stock repair);
- Repair, Webhooks, Erasures: what one or two functions read alone.
A field keeps its variable's name, lowercased, in any slice.
"""

import os
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, ClassVar
from urllib.parse import urlsplit

from common.platform.env import ConfigError, Env, stop_process

# The platform's promise: a deleted or disabled account's tokens stop working within it.
REVOCATION_SECONDS = 60.0
# Signs list page tokens locally; a cloud stage has its own (like the JWT key).
LOCAL_PAGE_TOKEN_KEY = "local-page-token-key-not-for-clouds"
DEFAULT_MAX_RESPONSE_BYTES = 5_000_000  # under Lambda's 6 MB response limit
MIN_RESPONSE_BYTES = 4096
DEFAULT_REGION = "us-east-1"

_REGION = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]+")
# DynamoDB's own rule for table names.
_TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]{3,255}")
# Cognito's own rules for a user pool's id and an app client's id.
_USER_POOL_ID = re.compile(r"[\w-]+_[0-9a-zA-Z]+")
_CLIENT_ID = re.compile(r"[\w+]{1,128}")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# The tables of infra/template.yaml (tests/release holds this list to the template).
TABLES = (
    "ProductsTable",
    "ProductSkusTable",
    "StockReservationsTable",
    "StockLedgerTable",
    "WarehousesTable",
    "WarehouseCodesTable",
    "OrdersTable",
    "ReturnsTable",
    "ShipmentsTable",
    "CountersTable",
    "IdempotencyTable",
    "CircuitBreakersTable",
    "SignInAttemptsTable",
    "UserIdsTable",
    "WebhooksTable",
    "WebhookDeliveriesTable",
    "WebhookAttemptsTable",
    "DashboardFiguresTable",
    "DataRequestsTable",
    "ShipmentEventsTable",
    "TrackingCodesTable",
    "CarriersTable",
    "RevocationsTable",
)
# A webhook delivery's retries (docs/api.md#webhooks): after about 5 s, 1 min, 10 min, 1 h
# and 6 h, then a dead letter. As many as the delivery queue's maxReceiveCount less three
# (infra/template.yaml: the first try, and two receives to spare); each at most SQS's
# longest visibility timeout (common.platform.env.MAX_VISIBILITY_SECONDS).
WEBHOOK_RETRY_SECONDS = (5, 60, 600, 3600, 21600)
# An SQS queue: its URL on AWS; locally its name does (the emulator takes either).
_QUEUE = re.compile(r"https?://\S+|[A-Za-z0-9_-]{1,80}")
_QUEUE_ACCEPTS = "an SQS queue URL, or its name"
# A KMS key: its id, its ARN, or an alias (locally the emulator's alias/<logical id>).
_KMS_KEY = re.compile(r"[A-Za-z0-9:/_+=.@-]{1,2048}")


def table_env_var(logical_id: str) -> str:
    """PRODUCT_SKUS_TABLE for ProductSkusTable: how the template names each table's variable."""
    stem = logical_id.removesuffix("Table")
    snake = "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(stem))
    return f"{snake.upper()}_TABLE"


def _reader(env: Mapping[str, str] | None) -> Env:
    return Env(os.environ if env is None else env)


@dataclass(frozen=True)
class Cloud:
    """The AWS region every client calls, and the names of the tables."""

    VARIABLES: ClassVar = ("AWS_REGION", "AWS_DEFAULT_REGION", *map(table_env_var, TABLES))

    region: str = DEFAULT_REGION
    # {"PRODUCTS_TABLE": name, ...}: only the variables that were set.
    table_names: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def table_name(self, logical_id: str) -> str:
        """The name of a table declared in infra/template.yaml.

        The template passes each real name as e.g. PRODUCTS_TABLE for ProductsTable;
        locally the table is created under its logical id.
        """
        return self.table_names.get(table_env_var(logical_id), logical_id)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Cloud":
        read = _reader(env)
        # botocore's order: AWS_REGION (set by Lambda) before AWS_DEFAULT_REGION.
        variable = "AWS_REGION" if read.text("AWS_REGION") else "AWS_DEFAULT_REGION"
        accepts = "a DynamoDB table name ([A-Za-z0-9_.-], 3-255)"
        return cls(
            region=read.matching(
                variable, _REGION, DEFAULT_REGION, "an AWS region such as us-east-1"
            ),
            table_names=MappingProxyType(
                {
                    name: read.matching(name, _TABLE_NAME, "", accepts)
                    for name in map(table_env_var, TABLES)
                    if read.text(name)
                }
            ),
        )


@dataclass(frozen=True)
class Logs:
    """The structured logs' level: Powertools reads it itself; every function's init checks it."""

    VARIABLES: ClassVar = ("POWERTOOLS_LOG_LEVEL",)

    log_level: str = "INFO"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Logs":
        read = _reader(env)
        level = read.text("POWERTOOLS_LOG_LEVEL", "INFO").upper()
        if level not in LOG_LEVELS:
            read.fail("POWERTOOLS_LOG_LEVEL", f"one of {', '.join(LOG_LEVELS)}")
        return cls(log_level=level)


@dataclass(frozen=True)
class Http:
    """What every API's app reads: the one origin CORS allows, and where its GET / says the
    documentation is read (None: nowhere)."""

    VARIABLES: ClassVar = ("CORS_ALLOW_ORIGIN", "DOCS_URL")

    cors_allow_origin: str = "*"
    docs_url: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Http":
        read = _reader(env)
        origin = read.text("CORS_ALLOW_ORIGIN", "*")
        if origin != "*":
            parts = urlsplit(origin)
            if (
                parts.scheme not in ("http", "https")
                or not parts.hostname
                or origin != f"{parts.scheme}://{parts.netloc}"
            ):
                read.fail("CORS_ALLOW_ORIGIN", "* or one origin such as https://ops.example.com")
        return cls(cors_allow_origin=origin, docs_url=read.url("DOCS_URL"))


@dataclass(frozen=True)
class Idempotency:
    """How long a successful create is remembered under its key (common.http.idempotency)."""

    VARIABLES: ClassVar = ("IDEMPOTENCY_TTL_SECONDS",)

    idempotency_ttl_seconds: int = 86_400

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Idempotency":
        read = _reader(env)
        return cls(read.integer("IDEMPOTENCY_TTL_SECONDS", 86_400, minimum=1))


@dataclass(frozen=True)
class Pages:
    """A list's pages: the key their tokens are signed with, and the largest body."""

    VARIABLES: ClassVar = ("PAGE_TOKEN_KEY", "PAGE_TOKEN_KEY_ID", "MAX_RESPONSE_BYTES")

    page_token_key: bytes = field(default=LOCAL_PAGE_TOKEN_KEY.encode(), repr=False)
    # On AWS the key lives in Secrets Manager: this names the secret (keys.py reads it).
    page_token_key_id: str | None = None
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Pages":
        read = _reader(env)
        return cls(
            page_token_key=read.secret("PAGE_TOKEN_KEY", LOCAL_PAGE_TOKEN_KEY),
            page_token_key_id=read.secret_id("PAGE_TOKEN_KEY_ID", "PAGE_TOKEN_KEY"),
            max_response_bytes=read.integer(
                "MAX_RESPONSE_BYTES", DEFAULT_MAX_RESPONSE_BYTES, minimum=MIN_RESPONSE_BYTES
            ),
        )


@dataclass(frozen=True)
class Tokens:
    """How a token is verified: the shared HS256 key (or the secret holding it), an OIDC
    issuer's, and how long the authorizer keeps the pool's answer about an account."""

    VARIABLES: ClassVar = (
        "JWT_SECRET",
        "JWT_SECRET_ID",
        "JWT_ISSUER",
        "JWT_AUDIENCE",
        "JWT_JWKS_URL",
        "ACCOUNT_CHECK_SECONDS",
    )

    # JWT_SECRET has no default: a published key would let anyone sign an operator's token.
    # On AWS the key is a secret (JWT_SECRET_ID); the local stack makes one of its own
    # (infra/local/signing_key.py); a function that verifies tokens without either stops at init.
    jwt_secret: bytes | None = field(default=None, repr=False)
    jwt_secret_id: str | None = None
    # Tokens from an OIDC issuer (RS256, its JWKS) instead of the shared HS256 key.
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    jwt_jwks_url: str | None = None
    # A disabled or deleted account's token is refused within it (docs/identity.md).
    account_check_seconds: float = 30.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Tokens":
        read = _reader(env)
        issuer, audience = read.https_url("JWT_ISSUER"), read.text("JWT_AUDIENCE")
        if issuer is not None and audience is None:
            # Without it any token the issuer signs, for any of its clients, would pass.
            read.fail("JWT_AUDIENCE", "the client id tokens are issued for, when JWT_ISSUER is set")
        return cls(
            jwt_secret=read.secret("JWT_SECRET"),
            jwt_secret_id=read.secret_id("JWT_SECRET_ID", "JWT_SECRET"),
            jwt_issuer=issuer,
            jwt_audience=audience,
            jwt_jwks_url=read.https_url("JWT_JWKS_URL"),
            # At most the 60 s within which a revoked account's tokens stop working.
            account_check_seconds=read.number(
                "ACCOUNT_CHECK_SECONDS", 30.0, minimum=0, maximum=REVOCATION_SECONDS
            ),
        )


@dataclass(frozen=True)
class Pool:
    """The user pool users sign in to (POST /api/auth/*), and its app client."""

    VARIABLES: ClassVar = ("USER_POOL_ID", "USER_POOL_CLIENT_ID")

    user_pool_id: str | None = None
    user_pool_client_id: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Pool":
        read = _reader(env)
        return cls(
            user_pool_id=read.matching(
                "USER_POOL_ID", _USER_POOL_ID, None, "a Cognito user pool id (us-east-1_AbC123)"
            ),
            user_pool_client_id=read.matching(
                "USER_POOL_CLIENT_ID", _CLIENT_ID, None, "a Cognito app client id"
            ),
        )


@dataclass(frozen=True)
class Peers:
    """How this function reaches the others: over HTTP at a URL, else by invoking a function,
    else over HTTP through the gateway the request came in on (common.http.service_calls);
    and how long an invoke waits (the Lambda client's timeout, whoever is called)."""

    VARIABLES: ClassVar = (
        "INVENTORY_SERVICE_URL",
        "INVENTORY_FUNCTION",
        "ORDERS_SERVICE_URL",
        "ORDERS_FUNCTION",
        "SHIPPING_SERVICE_URL",
        "NOTIFICATION_SERVICE_URL",
        "ORDER_EVENTS_FUNCTION",
        "STOCK_CHECK_TIMEOUT_SECONDS",
    )

    inventory_service_url: str | None = None
    inventory_function: str | None = None
    # Whose order a new shipment fulfils, asked of the orders service the same ways.
    orders_service_url: str | None = None
    orders_function: str | None = None
    # Where the dashboard asks whether the shipping service is up (over HTTP only).
    shipping_service_url: str | None = None
    notification_service_url: str | None = None
    order_events_function: str = "OrderEventsFunction"
    stock_check_timeout_seconds: float = 2.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Peers":
        read = _reader(env)
        return cls(
            inventory_service_url=read.url("INVENTORY_SERVICE_URL"),
            inventory_function=read.function("INVENTORY_FUNCTION"),
            orders_service_url=read.url("ORDERS_SERVICE_URL"),
            orders_function=read.function("ORDERS_FUNCTION"),
            shipping_service_url=read.url("SHIPPING_SERVICE_URL"),
            notification_service_url=read.url("NOTIFICATION_SERVICE_URL"),
            order_events_function=read.function("ORDER_EVENTS_FUNCTION", "OrderEventsFunction"),
            stock_check_timeout_seconds=read.number(
                "STOCK_CHECK_TIMEOUT_SECONDS", 2.0, minimum=0.001
            ),
        )


@dataclass(frozen=True)
class Breaker:
    """The inventory's breaker: failed calls that open it, and how long it stays open."""

    VARIABLES: ClassVar = ("BREAKER_FAIL_MAX", "BREAKER_RESET_SECONDS")

    breaker_fail_max: int = 5
    breaker_reset_seconds: float = 30.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Breaker":
        read = _reader(env)
        return cls(
            breaker_fail_max=read.integer("BREAKER_FAIL_MAX", 5, minimum=1),
            breaker_reset_seconds=read.number("BREAKER_RESET_SECONDS", 30.0, minimum=0),
        )


@dataclass(frozen=True)
class Repair:
    """How old a stock move must be before the repair may take it for a crash's leftover
    rather than a move still on its way (functions/stock_repair)."""

    VARIABLES: ClassVar = ("STOCK_REPAIR_GRACE_SECONDS",)

    stock_repair_grace_seconds: float = 60.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Repair":
        read = _reader(env)
        return cls(read.number("STOCK_REPAIR_GRACE_SECONDS", 60.0, minimum=0.001))


@dataclass(frozen=True)
class Webhooks:
    """The queue deliveries wait in and the one they end in, their retries, whether a target
    may be on this machine over plain http (the local stack's; never on AWS), and the KMS
    key the endpoints' and the carriers' secrets are encrypted with."""

    VARIABLES: ClassVar = (
        "WEBHOOK_QUEUE",
        "WEBHOOK_DEAD_LETTER_QUEUE",
        "WEBHOOK_RETRY_SECONDS",
        "WEBHOOK_LOCAL_TARGETS",
        "WEBHOOK_SECRETS_KEY",
    )

    webhook_queue: str = "WebhookDeliveryQueue"
    webhook_dead_letter_queue: str = "WebhookDeliveryDeadLetterQueue"
    webhook_retry_seconds: tuple[int, ...] = WEBHOOK_RETRY_SECONDS
    webhook_local_targets: bool = False
    webhook_secrets_key: str = "alias/WebhookSecretsKey"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Webhooks":
        read = _reader(env)
        return cls(
            webhook_queue=read.matching(
                "WEBHOOK_QUEUE", _QUEUE, "WebhookDeliveryQueue", _QUEUE_ACCEPTS
            ),
            webhook_dead_letter_queue=read.matching(
                "WEBHOOK_DEAD_LETTER_QUEUE",
                _QUEUE,
                "WebhookDeliveryDeadLetterQueue",
                _QUEUE_ACCEPTS,
            ),
            webhook_retry_seconds=read.retry_schedule(
                "WEBHOOK_RETRY_SECONDS", WEBHOOK_RETRY_SECONDS
            ),
            webhook_local_targets=read.flag("WEBHOOK_LOCAL_TARGETS"),
            webhook_secrets_key=read.matching(
                "WEBHOOK_SECRETS_KEY",
                _KMS_KEY,
                "alias/WebhookSecretsKey",
                "a KMS key id, key ARN or alias/name",
            ),
        )


@dataclass(frozen=True)
class Erasures:
    """Where an accepted erasure waits for the erasure function (docs/personal-data.md)."""

    VARIABLES: ClassVar = ("ERASURE_QUEUE",)

    erasure_queue: str = "ErasureQueue"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Erasures":
        read = _reader(env)
        return cls(read.matching("ERASURE_QUEUE", _QUEUE, "ErasureQueue", _QUEUE_ACCEPTS))


SLICES: tuple[type, ...] = (
    Cloud,
    Logs,
    Http,
    Idempotency,
    Pages,
    Tokens,
    Pool,
    Peers,
    Breaker,
    Repair,
    Webhooks,
    Erasures,
)
# Every variable the slices read, each in one slice (tests/unit/test_settings.py holds
# them to what from_env reads): the local runtime passes those a developer sets on to the
# functions, and docs/configuration.md lists them all.
VARIABLES: tuple[str, ...] = tuple(name for kind in SLICES for name in kind.VARIABLES)  # type: ignore[attr-defined]


def load[S](kind: type[S], env: Mapping[str, str] | None = None) -> S:
    """A slice for a process's start: an unusable value ends the process with its line."""
    try:
        return kind.from_env(env)  # type: ignore[attr-defined]
    except ConfigError as exc:
        stop_process(exc)


def taken_by(function: Callable) -> dict[str, type]:
    """The slices `function` takes, by parameter name: its annotations say which."""
    hints = typing.get_type_hints(function)
    return {name: kind for name, kind in hints.items() if name != "return" and kind in SLICES}


def arguments(function: Callable, slice_of: Callable[[type], Any]) -> dict[str, Any]:
    """The keyword arguments that give `function` the slices it takes."""
    return {name: slice_of(kind) for name, kind in taken_by(function).items()}


@dataclass(frozen=True)
class AllSettings:
    """Every slice at once, for what really reads every variable: the local stack checks
    every function's environment at its start, and the in-process gateway (app.py) holds
    every API's routes. A function never takes it (tests/unit/test_settings.py)."""

    cloud: Cloud = Cloud()
    logs: Logs = Logs()
    http: Http = Http()
    idempotency: Idempotency = Idempotency()
    pages: Pages = Pages()
    tokens: Tokens = Tokens()
    pool: Pool = Pool()
    peers: Peers = Peers()
    breaker: Breaker = Breaker()
    repair: Repair = Repair()
    webhooks: Webhooks = Webhooks()
    erasures: Erasures = Erasures()

    def of[S](self, kind: type[S]) -> S:
        return getattr(self, kind.__name__.lower())

    def arguments(self, function: Callable) -> dict[str, Any]:
        """What `function` (a wiring's create, say) takes of these: call function(**them)."""
        return arguments(function, self.of)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "AllSettings":
        """Every slice from `env`; raises ConfigError naming the first unusable variable."""
        env = os.environ if env is None else env
        return cls(**{item.name: item.type.from_env(env) for item in fields(cls)})  # type: ignore[union-attr]

    @classmethod
    def load(cls, env: Mapping[str, str] | None = None) -> "AllSettings":
        return load(cls, env)
