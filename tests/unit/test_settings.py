"""Settings: read once, checked at start, one line naming a bad variable."""

import subprocess
import sys
from pathlib import Path

import pytest

from common.platform.settings import ConfigError, Settings, table_env_var


def test_defaults_are_the_documented_ones():
    settings = Settings.from_env({})
    assert settings == Settings()
    assert (
        settings.breaker_fail_max,
        settings.breaker_reset_seconds,
        settings.stock_check_timeout_seconds,
    ) == (5, 30.0, 2.0)
    assert settings.jwt_secret is None  # no default key: see test_no_key_is_published
    assert settings.cors_allow_origin == "*" and settings.region == "us-east-1"
    assert settings.inventory_service_url is None and settings.notification_service_url is None
    assert settings.order_events_function == "OrderEventsFunction"


def test_values_are_read_and_typed():
    settings = Settings.from_env(
        {
            "BREAKER_FAIL_MAX": "3",
            "BREAKER_RESET_SECONDS": "2.5",
            "STOCK_CHECK_TIMEOUT_SECONDS": "0.5",
            "INVENTORY_SERVICE_URL": "http://127.0.0.1:9/",
            "NOTIFICATION_SERVICE_URL": "https://x.example.com/api",
            "AWS_REGION": "eu-west-1",
            "AWS_DEFAULT_REGION": "us-west-2",
            "CORS_ALLOW_ORIGIN": "https://ops.example.com",
            "ORDER_EVENTS_FUNCTION": "logistics-prod-OrderEvents-1A2B",
        }
    )
    assert settings.breaker_fail_max == 3 and settings.breaker_reset_seconds == 2.5
    assert settings.stock_check_timeout_seconds == 0.5
    assert settings.inventory_service_url == "http://127.0.0.1:9"  # no trailing slash
    assert settings.notification_service_url == "https://x.example.com/api"
    assert settings.region == "eu-west-1"  # AWS_REGION wins, as in botocore
    assert settings.cors_allow_origin == "https://ops.example.com"


def test_empty_means_unset():
    settings = Settings.from_env({"NOTIFICATION_SERVICE_URL": "", "BREAKER_FAIL_MAX": " "})
    assert settings.notification_service_url is None and settings.breaker_fail_max == 5


def test_table_names_come_from_their_variables_or_default_to_the_logical_id():
    settings = Settings.from_env({"PRODUCTS_TABLE": "logistics-prod-Products-1XYZ"})
    assert settings.table_name("ProductsTable") == "logistics-prod-Products-1XYZ"
    assert settings.table_name("ProductSkusTable") == "ProductSkusTable"
    assert table_env_var("ProductSkusTable") == "PRODUCT_SKUS_TABLE"


@pytest.mark.parametrize(
    "name, value, accepts",
    [
        ("BREAKER_FAIL_MAX", "zero", "an integer >= 1"),
        ("BREAKER_FAIL_MAX", "0", "an integer >= 1"),
        ("BREAKER_FAIL_MAX", "2.5", "an integer >= 1"),
        ("BREAKER_RESET_SECONDS", "-1", "a number >= 0"),
        ("BREAKER_RESET_SECONDS", "nan", "a number >= 0"),
        ("BREAKER_RESET_SECONDS", "inf", "a number >= 0"),
        ("STOCK_CHECK_TIMEOUT_SECONDS", "soon", "a number >= 0.001"),
        ("STOCK_CHECK_TIMEOUT_SECONDS", "0", "a number >= 0.001"),
        ("INVENTORY_SERVICE_URL", "localhost:8000", "an http(s) URL"),
        ("NOTIFICATION_SERVICE_URL", "ftp://x.example.com", "an http(s) URL"),
        ("CORS_ALLOW_ORIGIN", "https://ops.example.com/path", "one origin"),
        ("CORS_ALLOW_ORIGIN", "ops.example.com", "one origin"),
        ("AWS_REGION", "mars", "an AWS region"),
        ("ORDER_EVENTS_FUNCTION", "has spaces", "a Lambda function name"),
        ("PRODUCTS_TABLE", "x y", "a DynamoDB table name"),
        ("POWERTOOLS_LOG_LEVEL", "LOUD", "one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        # Digits of other scripts pass str.isdigit(), and int() takes some of them.
        ("WEBHOOK_RETRY_SECONDS", "1,2,4,8,\u00b2", "5 whole numbers of seconds"),
        ("WEBHOOK_RETRY_SECONDS", "1,2,4,8,\u0661", "5 whole numbers of seconds"),
    ],
)
def test_an_unusable_value_is_refused_naming_the_variable_and_what_it_accepts(name, value, accepts):
    with pytest.raises(ConfigError) as err:
        Settings.from_env({name: value})
    message = str(err.value)
    assert message.startswith(f"{name}={value!r}: must be ") and accepts in message
    assert "\n" not in message


def test_load_stops_the_process_with_one_line(capsys):
    with pytest.raises(SystemExit) as stopped:
        Settings.load({"BREAKER_RESET_SECONDS": "-1"})
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        "Configuration error: BREAKER_RESET_SECONDS='-1': must be a number >= 0\n"
    )


def test_settings_are_frozen():
    settings = Settings()
    with pytest.raises(AttributeError):
        settings.breaker_fail_max = 1
    with pytest.raises(TypeError):
        Settings.from_env({"X_TABLE": "abc"}).table_names["X_TABLE"] = "other"


def test_a_bad_secret_is_named_but_never_shown():
    with pytest.raises(ConfigError) as err:
        Settings.from_env({"JWT_SECRET": "hunter2-prod"})
    assert str(err.value) == "JWT_SECRET=(hidden): must be at least 32 bytes of UTF-8"
    assert "hunter2" not in repr(Settings.from_env({"JWT_SECRET": "hunter2" * 6}))


def test_only_the_templates_table_variables_are_read():
    settings = Settings.from_env({"ROUTING_TABLE": "not a table name", "ORDERS_TABLE": "o-1"})
    assert dict(settings.table_names) == {"ORDERS_TABLE": "o-1"}


def test_the_log_level_is_read_case_insensitively():
    assert Settings.from_env({"POWERTOOLS_LOG_LEVEL": "debug"}).log_level == "DEBUG"


def test_a_key_lives_in_one_place_only():
    with pytest.raises(ConfigError, match="JWT_SECRET_ID.*empty when JWT_SECRET is set"):
        Settings.from_env({"JWT_SECRET": "x" * 40, "JWT_SECRET_ID": "stack/jwt-signing-key"})
    with pytest.raises(ConfigError, match="PAGE_TOKEN_KEY_ID"):
        Settings.from_env({"PAGE_TOKEN_KEY": "y" * 40, "PAGE_TOKEN_KEY_ID": "stack/page"})
    settings = Settings.from_env(
        {"JWT_SECRET_ID": "arn:aws:secretsmanager:us-east-1:1:secret:stack/jwt-signing-key-AbCdEf"}
    )
    assert settings.jwt_secret_id.endswith("jwt-signing-key-AbCdEf")


# The original system's development key, in its public repository.
PUBLISHED_KEY = "mySecureSecretKey1234567890ABCDE"
ROOT = Path(__file__).resolve().parents[2]


def test_no_key_is_published():
    """No code of the platform holds a key anyone could sign with: a function without
    JWT_SECRET or JWT_SECRET_ID has none (common.platform.keys), and the local stack makes its own
    (infra/local/tokens.py)."""
    code = [
        path
        for folder in ("layers", "functions", "infra", "bench", "console")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (".py", ".js", ".json", ".yaml") and path.is_file()
    ]
    assert [path for path in code if PUBLISHED_KEY in path.read_text(errors="replace")] == []
    assert Settings().jwt_secret is None and Settings.from_env({}).jwt_secret is None


def test_an_authorizer_without_a_key_stops_at_init_naming_the_variables():
    """Not a default key: no key at all, said in one line at init, exit status 2."""
    started = subprocess.run(
        [sys.executable, "-c", "import authorizer.lambda_app"],
        env={"PATH": "/usr/bin:/bin", "AWS_DEFAULT_REGION": "us-east-1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 2, started.stderr
    assert started.stderr.startswith("Configuration error: JWT_SECRET"), started.stderr
    assert "JWT_SECRET_ID" in started.stderr and len(started.stderr.splitlines()) == 1


def test_a_secret_id_must_look_like_one():
    with pytest.raises(ConfigError, match="JWT_SECRET_ID='has spaces'"):
        Settings.from_env({"JWT_SECRET_ID": "has spaces"})


@pytest.mark.parametrize(
    "issuer, accepted",
    [
        ("https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Ab", True),
        ("http://127.0.0.1:9000", True),
        ("http://localhost:9000/realms/x", True),
        ("http://idp.example.com", False),
        ("ftp://idp.example.com", False),
    ],
)
def test_an_issuer_is_fetched_over_https_unless_it_is_this_machine(issuer, accepted):
    env = {"JWT_ISSUER": issuer, "JWT_AUDIENCE": "client"}
    if accepted:
        assert Settings.from_env(env).jwt_issuer == issuer
    else:
        with pytest.raises(ConfigError, match="JWT_ISSUER"):
            Settings.from_env(env)


def test_the_list_of_variables_is_exactly_what_settings_read():
    from common.platform.settings import VARIABLES

    read = set()

    class Recording(dict):
        def get(self, key, default=None):
            read.add(key)
            return default

    Settings.from_env(Recording())
    assert read == set(VARIABLES)
