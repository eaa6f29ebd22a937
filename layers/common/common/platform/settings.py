"""Every environment variable the platform reads, read and checked once at start.

A function builds its Settings during init (Lambda init, the local stack's start, a
test's fixture) and hands it to what needs it; no code of ours reads the environment
later (botocore reads its own endpoint and credential variables when a client is built).
A value that cannot work stops the process there, in one line naming the variable and
what it accepts, instead of turning into a 500 on some later request.
"""

import math
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NoReturn, TypeVar, overload
from urllib.parse import urlsplit

from common.platform.ids import ascii_digits

# JWT_SECRET has no default: a published key would let anyone sign an operator's token.
# On AWS the key is a secret (JWT_SECRET_ID); the local stack makes one of its own
# (infra/local/tokens.py); a function that verifies tokens without either stops at init.
MIN_JWT_SECRET_BYTES = 32
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
# A Lambda function name, name:alias, or ARN.
_FUNCTION = re.compile(r"[A-Za-z0-9_:.$-]{1,170}")
# A Secrets Manager secret's name or ARN.
_SECRET_ID = re.compile(r"[A-Za-z0-9/_+=.@:-]{1,2048}")
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
# longest visibility timeout, 12 h.
WEBHOOK_RETRY_SECONDS = (5, 60, 600, 3600, 21600)
MAX_VISIBILITY_SECONDS = 43200
# The delivery queue: its URL on AWS; locally its name does (the emulator takes either).
_QUEUE = re.compile(r"https?://\S+|[A-Za-z0-9_-]{1,80}")
# A KMS key: its id, its ARN, or an alias (locally the emulator's alias/<logical id>).
_KMS_KEY = re.compile(r"[A-Za-z0-9:/_+=.@-]{1,2048}")
# Values never echoed in an error line: it may end up in a log.
_SECRETS = {"JWT_SECRET", "PAGE_TOKEN_KEY"}


class ConfigError(ValueError):
    """A variable holds a value the platform cannot run with; str() is the line to print."""


N = TypeVar("N", int, float)


class Env:
    """Typed reads of one environment snapshot; an empty value counts as unset."""

    def __init__(self, env: Mapping[str, str]):
        self.env = env

    # A default that is a str makes the value a str: what the type checker needs to know.
    @overload
    def text(self, name: str, default: str) -> str: ...
    @overload
    def text(self, name: str, default: None = None) -> str | None: ...

    def text(self, name: str, default: str | None = None) -> str | None:
        value = self.env.get(name, "").strip()
        return value or default

    def fail(self, name: str, accepts: str) -> NoReturn:
        shown = "(hidden)" if name in _SECRETS else repr(self.env.get(name, ""))
        raise ConfigError(f"{name}={shown}: must be {accepts}")

    @overload
    def number(
        self, name: str, default: float, *, minimum: float, maximum: float = math.inf
    ) -> float: ...
    @overload
    def number(
        self, name: str, default: None, *, minimum: float, maximum: float = math.inf
    ) -> float | None: ...

    def number(
        self, name: str, default: float | None, *, minimum: float, maximum: float = math.inf
    ) -> float | None:
        return self._parsed(name, default, minimum, float, maximum)

    @overload
    def integer(self, name: str, default: int, *, minimum: int) -> int: ...
    @overload
    def integer(self, name: str, default: None, *, minimum: int) -> int | None: ...

    def integer(self, name: str, default: int | None, *, minimum: int) -> int | None:
        return self._parsed(name, default, minimum, int)

    def _parsed(
        self,
        name: str,
        default: N | None,
        minimum: float,
        kind: type[N],
        maximum: float = math.inf,
    ) -> N | None:
        raw = self.text(name)
        if raw is None:
            return default
        accepts = f"{'an integer' if kind is int else 'a number'} >= {minimum}"
        if maximum != math.inf:
            accepts += f" and <= {maximum:g}"
        try:
            value = kind(raw)
        except ValueError:
            self.fail(name, accepts)
        if not (math.isfinite(value) and minimum <= value <= maximum):
            self.fail(name, accepts)
        return value

    def url(self, name: str) -> str | None:
        raw = self.text(name)
        if raw is None:
            return None
        parts = urlsplit(raw)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
            self.fail(name, "an http(s) URL such as http://127.0.0.1:8000, or empty")
        return raw.rstrip("/")

    @overload
    def secret(self, name: str, default: str) -> bytes: ...
    @overload
    def secret(self, name: str, default: None = None) -> bytes | None: ...

    def secret(self, name: str, default: str | None = None) -> bytes | None:
        text = self.text(name, default)
        if text is None:
            return None
        value = text.encode("utf-8")
        if len(value) < MIN_JWT_SECRET_BYTES:
            self.fail(name, f"at least {MIN_JWT_SECRET_BYTES} bytes of UTF-8")
        return value

    def secret_id(self, name: str, literal: str) -> str | None:
        """Where a key lives in Secrets Manager; never beside the key itself."""
        value = self.matching(name, _SECRET_ID, None, "a Secrets Manager secret name or ARN")
        if value is not None and self.text(literal) is not None:
            self.fail(name, f"empty when {literal} is set (one place for the key)")
        return value

    def https_url(self, name: str) -> str | None:
        """An https URL, exactly as given (an issuer is compared with the tokens' `iss`
        character for character): keys and identities are not fetched in the clear,
        except from this machine (a local identity provider, the tests)."""
        raw = self.text(name)
        if raw is None or self.url(name) is None:
            return None
        if not raw.startswith("https://") and urlsplit(raw).hostname not in (
            "127.0.0.1",
            "localhost",
        ):
            self.fail(name, "an https URL (http only on 127.0.0.1), or empty")
        return raw

    @overload
    def matching(self, name: str, pattern: re.Pattern, default: str, accepts: str) -> str: ...
    @overload
    def matching(
        self, name: str, pattern: re.Pattern, default: None, accepts: str
    ) -> str | None: ...

    def matching(
        self, name: str, pattern: re.Pattern, default: str | None, accepts: str
    ) -> str | None:
        value = self.text(name, default)
        if value is not None and not pattern.fullmatch(value):
            self.fail(name, accepts)
        return value

    # -- the settings that need more than a type --------------------------------------------

    def region(self) -> str:
        # botocore's order: AWS_REGION (set by Lambda) before AWS_DEFAULT_REGION.
        variable = "AWS_REGION" if self.text("AWS_REGION") else "AWS_DEFAULT_REGION"
        return self.matching(variable, _REGION, DEFAULT_REGION, "an AWS region such as us-east-1")

    def cors_origin(self) -> str:
        origin = self.text("CORS_ALLOW_ORIGIN", "*")
        if origin != "*":
            parts = urlsplit(origin)
            if (
                parts.scheme not in ("http", "https")
                or not parts.hostname
                or origin != f"{parts.scheme}://{parts.netloc}"
            ):
                self.fail("CORS_ALLOW_ORIGIN", "* or one origin such as https://ops.example.com")
        return origin

    def log_level(self) -> str:
        level = self.text("POWERTOOLS_LOG_LEVEL", "INFO").upper()
        if level not in LOG_LEVELS:
            self.fail("POWERTOOLS_LOG_LEVEL", f"one of {', '.join(LOG_LEVELS)}")
        return level

    def issuer(self) -> tuple[str | None, str | None]:
        """JWT_ISSUER and JWT_AUDIENCE: an issuer needs the client its tokens are for."""
        issuer, audience = self.https_url("JWT_ISSUER"), self.text("JWT_AUDIENCE")
        if issuer is not None and audience is None:
            # Without it any token the issuer signs, for any of its clients, would pass.
            self.fail("JWT_AUDIENCE", "the client id tokens are issued for, when JWT_ISSUER is set")
        return issuer, audience

    @overload
    def function(self, name: str, default: str) -> str: ...
    @overload
    def function(self, name: str, default: None = None) -> str | None: ...

    def function(self, name: str, default: str | None = None) -> str | None:
        accepts = "a Lambda function name or ARN" + (", or empty" if default is None else "")
        return self.matching(name, _FUNCTION, default, accepts)

    def flag(self, name: str) -> bool:
        value = self.text(name, "false").lower()
        if value not in ("true", "false", "1", "0"):
            self.fail(name, "true or false")
        return value in ("true", "1")

    def retry_schedule(self, name: str, default: tuple[int, ...]) -> tuple[int, ...]:
        """Whole seconds, as many as `default` has (the queue's redrive counts them)."""
        raw = self.text(name)
        if raw is None:
            return default
        accepts = (
            f"{len(default)} whole numbers of seconds from 0 to {MAX_VISIBILITY_SECONDS}, "
            "separated by commas (e.g. 1,2,4,8,16)"
        )
        parts = [part.strip() for part in raw.split(",")]
        if len(parts) != len(default) or not all(map(ascii_digits, parts)):
            self.fail(name, accepts)
        seconds = tuple(int(part) for part in parts)
        if max(seconds) > MAX_VISIBILITY_SECONDS:
            self.fail(name, accepts)
        return seconds

    def webhooks(self) -> dict:
        """The webhooks' settings, by their Settings names."""
        queue = "an SQS queue URL, or its name"
        return {
            "webhook_queue": self.matching("WEBHOOK_QUEUE", _QUEUE, "WebhookDeliveryQueue", queue),
            "webhook_dead_letter_queue": self.matching(
                "WEBHOOK_DEAD_LETTER_QUEUE", _QUEUE, "WebhookDeliveryDeadLetterQueue", queue
            ),
            "webhook_retry_seconds": self.retry_schedule(
                "WEBHOOK_RETRY_SECONDS", WEBHOOK_RETRY_SECONDS
            ),
            "webhook_local_targets": self.flag("WEBHOOK_LOCAL_TARGETS"),
            "webhook_secrets_key": self.matching(
                "WEBHOOK_SECRETS_KEY",
                _KMS_KEY,
                "alias/WebhookSecretsKey",
                "a KMS key id, key ARN or alias/name",
            ),
        }

    def table_names(self) -> dict[str, str]:
        """{"PRODUCTS_TABLE": name, ...}: only the variables that are set."""
        return {
            name: self.matching(
                name, _TABLE_NAME, "", "a DynamoDB table name ([A-Za-z0-9_.-], 3-255)"
            )
            for name in map(table_env_var, TABLES)
            if self.text(name)
        }


def table_env_var(logical_id: str) -> str:
    """PRODUCT_SKUS_TABLE for ProductSkusTable: how the template names each table's variable."""
    stem = logical_id.removesuffix("Table")
    snake = "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(stem))
    return f"{snake.upper()}_TABLE"


# Every variable Settings.from_env reads (tests/unit/test_settings.py holds the two
# together): the local runtime passes those a developer sets on to the functions.
VARIABLES = (
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "CORS_ALLOW_ORIGIN",
    "POWERTOOLS_LOG_LEVEL",
    "JWT_SECRET",
    "JWT_SECRET_ID",
    "JWT_ISSUER",
    "JWT_AUDIENCE",
    "JWT_JWKS_URL",
    "USER_POOL_ID",
    "USER_POOL_CLIENT_ID",
    "ACCOUNT_CHECK_SECONDS",
    "PAGE_TOKEN_KEY",
    "PAGE_TOKEN_KEY_ID",
    "INVENTORY_SERVICE_URL",
    "INVENTORY_FUNCTION",
    "ORDERS_SERVICE_URL",
    "ORDERS_FUNCTION",
    "SHIPPING_SERVICE_URL",
    "BREAKER_FAIL_MAX",
    "BREAKER_RESET_SECONDS",
    "STOCK_CHECK_TIMEOUT_SECONDS",
    "NOTIFICATION_SERVICE_URL",
    "ORDER_EVENTS_FUNCTION",
    "MAX_RESPONSE_BYTES",
    "IDEMPOTENCY_TTL_SECONDS",
    "STOCK_REPAIR_GRACE_SECONDS",
    "DOCS_URL",
    "WEBHOOK_QUEUE",
    "WEBHOOK_DEAD_LETTER_QUEUE",
    "WEBHOOK_RETRY_SECONDS",
    "WEBHOOK_LOCAL_TARGETS",
    "WEBHOOK_SECRETS_KEY",
    "ERASURE_QUEUE",
    *map(table_env_var, TABLES),
)


@dataclass(frozen=True)
class Settings:
    """The configuration a function reads from its environment (Settings.load);
    docs/configuration.md lists every variable."""

    region: str = DEFAULT_REGION
    cors_allow_origin: str = "*"
    log_level: str = "INFO"
    jwt_secret: bytes | None = field(default=None, repr=False)  # None: see JWT_SECRET_ID
    # On AWS the keys live in Secrets Manager: these name the secrets (keys.py reads them).
    jwt_secret_id: str | None = None
    page_token_key_id: str | None = None
    # Tokens from an OIDC issuer (RS256, its JWKS) instead of the shared HS256 key.
    jwt_issuer: str | None = None
    jwt_audience: str | None = None
    jwt_jwks_url: str | None = None
    # The user pool users sign in to (POST /api/auth/*), and its app client.
    user_pool_id: str | None = None
    user_pool_client_id: str | None = None
    # The stock check: over HTTP at this URL; else by invoking this function; else over
    # HTTP through the gateway the order came in on (see common.stock.client and orders.wiring).
    inventory_service_url: str | None = None
    inventory_function: str | None = None
    # Whose order a new shipment fulfils, asked of the orders service the same ways.
    orders_service_url: str | None = None
    orders_function: str | None = None
    # Where the dashboard asks whether the shipping service is up (over HTTP, as it asks
    # the inventory and the orders: INVENTORY_SERVICE_URL, ORDERS_SERVICE_URL; else the
    # gateway the request came in on).
    shipping_service_url: str | None = None
    breaker_fail_max: int = 5
    # How long the authorizer keeps the pool's answer about a token's account: a disabled
    # or deleted account's token is refused within it (docs/identity.md: at most 60 s).
    account_check_seconds: float = 30.0
    breaker_reset_seconds: float = 30.0
    stock_check_timeout_seconds: float = 2.0
    notification_service_url: str | None = None
    order_events_function: str = "OrderEventsFunction"
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    idempotency_ttl_seconds: int = 86_400
    # How old a stock move must be before the repair may take it for a crash's leftover
    # rather than a move still on its way (stock_repair).
    stock_repair_grace_seconds: float = 60.0
    # Where the API's documentation is read: each API's GET / names it (None: nowhere).
    docs_url: str | None = None
    page_token_key: bytes = field(default=LOCAL_PAGE_TOKEN_KEY.encode(), repr=False)
    # Webhooks: the queue deliveries wait in, their retries, and whether a target may be
    # on this machine and over plain http (the local stack's; never on AWS).
    webhook_queue: str = "WebhookDeliveryQueue"
    # Where the delivery function puts a delivery given up (its dead letters).
    webhook_dead_letter_queue: str = "WebhookDeliveryDeadLetterQueue"
    webhook_retry_seconds: tuple[int, ...] = WEBHOOK_RETRY_SECONDS
    webhook_local_targets: bool = False
    # The KMS key the endpoints' secrets are encrypted with (the stack's; locally the
    # emulator's, by its alias).
    webhook_secrets_key: str = "alias/WebhookSecretsKey"
    # Where an accepted erasure waits for the erasure function (docs/personal-data.md).
    erasure_queue: str = "ErasureQueue"
    # {"PRODUCTS_TABLE": name, ...}: only the variables that were set.
    table_names: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def table_name(self, logical_id: str) -> str:
        """The name of a table declared in infra/template.yaml.

        The template passes each real name as e.g. PRODUCTS_TABLE for ProductsTable;
        locally the table is created under its logical id.
        """
        return self.table_names.get(table_env_var(logical_id), logical_id)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        """Every setting from `env`; raises ConfigError naming the first unusable one."""
        env = os.environ if env is None else env
        read = Env(env)
        issuer, audience = read.issuer()
        return cls(
            region=read.region(),
            cors_allow_origin=read.cors_origin(),
            log_level=read.log_level(),
            jwt_secret=read.secret("JWT_SECRET"),
            jwt_secret_id=read.secret_id("JWT_SECRET_ID", "JWT_SECRET"),
            page_token_key_id=read.secret_id("PAGE_TOKEN_KEY_ID", "PAGE_TOKEN_KEY"),
            jwt_issuer=issuer,
            jwt_audience=audience,
            jwt_jwks_url=read.https_url("JWT_JWKS_URL"),
            user_pool_id=read.matching(
                "USER_POOL_ID", _USER_POOL_ID, None, "a Cognito user pool id (us-east-1_AbC123)"
            ),
            user_pool_client_id=read.matching(
                "USER_POOL_CLIENT_ID", _CLIENT_ID, None, "a Cognito app client id"
            ),
            inventory_service_url=read.url("INVENTORY_SERVICE_URL"),
            inventory_function=read.function("INVENTORY_FUNCTION"),
            orders_service_url=read.url("ORDERS_SERVICE_URL"),
            orders_function=read.function("ORDERS_FUNCTION"),
            shipping_service_url=read.url("SHIPPING_SERVICE_URL"),
            breaker_fail_max=read.integer("BREAKER_FAIL_MAX", 5, minimum=1),
            # At most the 60 s within which a revoked account's tokens stop working.
            account_check_seconds=read.number(
                "ACCOUNT_CHECK_SECONDS", 30.0, minimum=0, maximum=REVOCATION_SECONDS
            ),
            breaker_reset_seconds=read.number("BREAKER_RESET_SECONDS", 30.0, minimum=0),
            stock_check_timeout_seconds=read.number(
                "STOCK_CHECK_TIMEOUT_SECONDS", 2.0, minimum=0.001
            ),
            notification_service_url=read.url("NOTIFICATION_SERVICE_URL"),
            order_events_function=read.function("ORDER_EVENTS_FUNCTION", "OrderEventsFunction"),
            max_response_bytes=read.integer(
                "MAX_RESPONSE_BYTES", DEFAULT_MAX_RESPONSE_BYTES, minimum=MIN_RESPONSE_BYTES
            ),
            page_token_key=read.secret("PAGE_TOKEN_KEY", LOCAL_PAGE_TOKEN_KEY),
            idempotency_ttl_seconds=read.integer("IDEMPOTENCY_TTL_SECONDS", 86_400, minimum=1),
            stock_repair_grace_seconds=read.number(
                "STOCK_REPAIR_GRACE_SECONDS", 60.0, minimum=0.001
            ),
            docs_url=read.url("DOCS_URL"),
            **read.webhooks(),
            erasure_queue=read.matching(
                "ERASURE_QUEUE", _QUEUE, "ErasureQueue", "an SQS queue URL, or its name"
            ),
            table_names=MappingProxyType(read.table_names()),
        )

    @classmethod
    def load(cls, env: Mapping[str, str] | None = None) -> "Settings":
        """from_env for a process's start: an unusable value ends the process with its line."""
        env = os.environ if env is None else env
        try:
            return cls.from_env(env)
        except ConfigError as exc:
            stop_process(exc)


def stop_process(error: ConfigError) -> NoReturn:
    """End a process that cannot start: its one line on stderr, exit status 2."""
    print(f"Configuration error: {error}", file=sys.stderr, flush=True)
    raise SystemExit(2) from None
