"""Every environment variable the platform reads, with its default, in one place.

Values are read when asked for, not at import, so a test or the local stack can set the
environment first. A value that cannot be used stops the process with a clear message
instead of surfacing later as a 500.
"""

import os

# The old Spring system's development key: fine on a laptop, never for a cloud stage
# (the SAM template takes the real one as a NoEcho parameter).
LOCAL_JWT_SECRET = "mySecureSecretKey1234567890ABCDE"
MIN_JWT_SECRET_BYTES = 32


class ConfigError(RuntimeError):
    """An environment variable holds a value the platform cannot run with."""


def _text(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or default


def _number(name: str, default: float, *, minimum: float, kind=float):
    raw = _text(name)
    if raw is None:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a {kind.__name__}") from None
    if value < minimum:
        raise ConfigError(f"{name}={raw!r} must be >= {minimum}")
    return value


def jwt_secret() -> bytes:
    secret = _text("JWT_SECRET", LOCAL_JWT_SECRET).encode("utf-8")
    if len(secret) < MIN_JWT_SECRET_BYTES:
        raise ConfigError(f"JWT_SECRET must be at least {MIN_JWT_SECRET_BYTES} bytes of UTF-8")
    return secret


def inventory_service_url() -> str | None:
    """Base URL for the stock check; None means "the gateway this request came in on"."""
    url = _text("INVENTORY_SERVICE_URL")
    return url.rstrip("/") if url else None


def breaker_fail_max() -> int:
    return _number("BREAKER_FAIL_MAX", 5, minimum=1, kind=int)


def breaker_reset_seconds() -> float:
    return _number("BREAKER_RESET_SECONDS", 30.0, minimum=0)


def stock_check_timeout_seconds() -> float:
    return _number("STOCK_CHECK_TIMEOUT_SECONDS", 2.0, minimum=0.001)


def notification_service_url() -> str | None:
    url = _text("NOTIFICATION_SERVICE_URL")
    return url.rstrip("/") if url else None


def cors_allow_origin() -> str:
    return _text("CORS_ALLOW_ORIGIN", "*")


def order_events_function() -> str:
    """Name of the Lambda function that handles PedidoAprobadoEvent."""
    return _text("ORDER_EVENTS_FUNCTION", "OrderEventsFunction")


def aws_region() -> str:
    return _text("AWS_REGION") or _text("AWS_DEFAULT_REGION", "us-east-1")


def table_name(logical_id: str) -> str:
    """Name of a table declared in infra/template.yaml.

    The template passes each real name to the functions as e.g. PRODUCTS_TABLE for
    ProductsTable; locally the table is created under its logical id.
    """
    return _text(table_env_var(logical_id), logical_id)


def table_env_var(logical_id: str) -> str:
    stem = logical_id.removesuffix("Table")
    snake = "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(stem))
    return f"{snake.upper()}_TABLE"
