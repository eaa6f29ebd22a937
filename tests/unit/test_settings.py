"""Settings in slices: each read once, checked at start, one line naming a bad variable."""

import subprocess
import sys
from pathlib import Path

import pytest

from common.platform.env import ConfigError
from common.platform.settings import (
    SLICES,
    VARIABLES,
    AllSettings,
    Breaker,
    Cloud,
    Http,
    Logs,
    Peers,
    Tokens,
    load,
    table_env_var,
)


def test_defaults_are_the_documented_ones():
    settings = AllSettings.from_env({})
    assert settings == AllSettings()
    assert all(kind.from_env({}) == kind() for kind in SLICES)
    assert (
        settings.breaker.breaker_fail_max,
        settings.breaker.breaker_reset_seconds,
        settings.peers.stock_check_timeout_seconds,
    ) == (5, 30.0, 2.0)
    assert settings.tokens.jwt_secret is None  # no default key: see test_no_key_is_published
    assert settings.http.cors_allow_origin == "*" and settings.cloud.region == "us-east-1"
    peers = settings.peers
    assert peers.inventory_service_url is None and peers.notification_service_url is None
    assert peers.order_events_function == "OrderEventsFunction"


def test_values_are_read_and_typed():
    settings = AllSettings.from_env(
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
    breaker, peers = settings.breaker, settings.peers
    assert breaker.breaker_fail_max == 3 and breaker.breaker_reset_seconds == 2.5
    assert peers.stock_check_timeout_seconds == 0.5
    assert peers.inventory_service_url == "http://127.0.0.1:9"  # no trailing slash
    assert peers.notification_service_url == "https://x.example.com/api"
    assert settings.cloud.region == "eu-west-1"  # AWS_REGION wins, as in botocore
    assert settings.http.cors_allow_origin == "https://ops.example.com"


def test_empty_means_unset():
    settings = AllSettings.from_env({"NOTIFICATION_SERVICE_URL": "", "BREAKER_FAIL_MAX": " "})
    assert settings.peers.notification_service_url is None
    assert settings.breaker.breaker_fail_max == 5


def test_table_names_come_from_their_variables_or_default_to_the_logical_id():
    settings = Cloud.from_env({"PRODUCTS_TABLE": "logistics-prod-Products-1XYZ"})
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
        AllSettings.from_env({name: value})
    message = str(err.value)
    assert message.startswith(f"{name}={value!r}: must be ") and accepts in message
    assert "\n" not in message


def test_load_stops_the_process_with_one_line(capsys):
    with pytest.raises(SystemExit) as stopped:
        load(Breaker, {"BREAKER_RESET_SECONDS": "-1"})
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        "Configuration error: BREAKER_RESET_SECONDS='-1': must be a number >= 0\n"
    )


def test_settings_are_frozen():
    breaker = Breaker()
    with pytest.raises(AttributeError):
        breaker.breaker_fail_max = 1
    with pytest.raises(AttributeError):
        AllSettings().breaker = breaker
    with pytest.raises(TypeError):
        Cloud.from_env({"ORDERS_TABLE": "abc"}).table_names["ORDERS_TABLE"] = "other"


def test_a_bad_secret_is_named_but_never_shown():
    with pytest.raises(ConfigError) as err:
        Tokens.from_env({"JWT_SECRET": "hunter2-prod"})
    assert str(err.value) == "JWT_SECRET=(hidden): must be at least 32 bytes of UTF-8"
    assert "hunter2" not in repr(AllSettings.from_env({"JWT_SECRET": "hunter2" * 6}))


def test_only_the_templates_table_variables_are_read():
    settings = Cloud.from_env({"ROUTING_TABLE": "not a table name", "ORDERS_TABLE": "o-1"})
    assert dict(settings.table_names) == {"ORDERS_TABLE": "o-1"}


def test_the_log_level_is_read_case_insensitively():
    assert Logs.from_env({"POWERTOOLS_LOG_LEVEL": "debug"}).log_level == "DEBUG"


def test_a_key_lives_in_one_place_only():
    with pytest.raises(ConfigError, match="JWT_SECRET_ID.*empty when JWT_SECRET is set"):
        Tokens.from_env({"JWT_SECRET": "x" * 40, "JWT_SECRET_ID": "stack/jwt-signing-key"})
    with pytest.raises(ConfigError, match="PAGE_TOKEN_KEY_ID"):
        AllSettings.from_env({"PAGE_TOKEN_KEY": "y" * 40, "PAGE_TOKEN_KEY_ID": "stack/page"})
    settings = Tokens.from_env(
        {"JWT_SECRET_ID": "arn:aws:secretsmanager:us-east-1:1:secret:stack/jwt-signing-key-AbCdEf"}
    )
    assert settings.jwt_secret_id.endswith("jwt-signing-key-AbCdEf")


# The original system's development key, in its public repository.
PUBLISHED_KEY = "mySecureSecretKey1234567890ABCDE"
ROOT = Path(__file__).resolve().parents[2]


def test_no_key_is_published():
    """No code of the platform holds a key anyone could sign with: a function without
    JWT_SECRET or JWT_SECRET_ID has none (common.platform.keys), and the local stack makes its own
    (infra/local/signing_key.py)."""
    code = [
        path
        for folder in ("layers", "functions", "infra", "bench", "console")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (".py", ".js", ".json", ".yaml") and path.is_file()
    ]
    assert [path for path in code if PUBLISHED_KEY in path.read_text(errors="replace")] == []
    assert Tokens().jwt_secret is None and Tokens.from_env({}).jwt_secret is None


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
        Tokens.from_env({"JWT_SECRET_ID": "has spaces"})


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
        assert Tokens.from_env(env).jwt_issuer == issuer
    else:
        with pytest.raises(ConfigError, match="JWT_ISSUER"):
            Tokens.from_env(env)


class Recording(dict):
    """An empty environment that notes every variable asked of it."""

    def __init__(self):
        super().__init__()
        self.read: set[str] = set()

    def get(self, key, default=None):
        self.read.add(key)
        return default


@pytest.mark.parametrize("kind", SLICES, ids=lambda kind: kind.__name__)
def test_each_slice_reads_its_own_variables_and_no_other(kind):
    env = Recording()
    kind.from_env(env)
    assert env.read == set(kind.VARIABLES)


def test_the_list_of_variables_is_every_slices_each_in_one():
    env = Recording()
    AllSettings.from_env(env)
    assert env.read == set(VARIABLES) and len(VARIABLES) == len(set(VARIABLES))


def test_a_functions_init_builds_exactly_the_slices_its_wiring_takes(monkeypatch):
    """And checks the log level, which Powertools reads itself; a bad value of another
    slice is no concern of a function that never reads it."""
    from types import SimpleNamespace

    from common.platform import aws
    from common.platform.lambda_init import start

    monkeypatch.setattr(aws, "HOME", aws.HOME)
    monkeypatch.setenv("BREAKER_FAIL_MAX", "zero")  # the notification function reads none
    monkeypatch.setenv("DOCS_URL", "https://docs.example.com")
    given = []

    def create(http: Http):
        given.append(http)
        return SimpleNamespace(logger=None)

    start(SimpleNamespace(FUNCTION="NotificationFunction", create=create))
    assert given == [Http(docs_url="https://docs.example.com")]
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "LOUD")
    with pytest.raises(SystemExit):
        start(SimpleNamespace(FUNCTION="NotificationFunction", create=create))


def test_every_slice_of_a_functions_parameters_is_given_by_name():
    def routes_for(cloud: Cloud, peers: Peers, lambda_client=None) -> None: ...

    settings = AllSettings(peers=Peers(orders_function="Orders"))
    assert settings.arguments(routes_for) == {"cloud": Cloud(), "peers": settings.peers}


def test_the_configurations_slices_tables_say_what_the_code_reads():
    """docs/configuration.md#slices: each slice's variables, and each function's slices."""
    import re

    from tests.support.settings import slices_taken, wirings

    section = (ROOT / "docs" / "configuration.md").read_text().split("\n## Slices\n")[1]
    rows = dict(re.findall(r"^\| `?(\w+)`? \| (.+) \|$", section, re.M))
    for kind in SLICES:
        documented = set(re.findall(r"`([A-Z_]+)`", rows[kind.__name__]))
        own = {name for name in kind.VARIABLES if not name.endswith("_TABLE")}
        assert documented == own, kind.__name__
    for function, wiring in wirings().items():
        documented = set(re.findall(r"`(\w+)`", rows[function]))
        assert documented == {kind.__name__ for kind in slices_taken(wiring)}, function
