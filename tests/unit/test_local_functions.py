"""How many execution environments the local stack gives each function of the template
(infra/local/functions.py): its reserved concurrency, or the default, and never more
than LAMBDA_MAX_ENVIRONMENTS."""

import pytest

from common.platform.env import ConfigError
from infra import template
from infra.local.functions import DEFAULT_CONCURRENCY, LOCAL_PARAMETERS, functions
from infra.local.settings import LocalSettings

URLS = {"GatewayApi": "http://127.0.0.1:1", "NotificationApi": "http://127.0.0.1:2"}


def reserved() -> dict[str, int]:
    """Each function's reserved concurrency in the template: a number (the stock repair's
    one), or a parameter's local value (the notification function's default; the
    deliveries' the local one)."""
    loaded = template.load()
    found = {}
    for name, function in template.resources("AWS::Serverless::Function").items():
        value = function["Properties"].get("ReservedConcurrentExecutions")
        if isinstance(value, dict):
            parameter = value["Ref"]
            value = LOCAL_PARAMETERS.get(parameter, loaded["Parameters"][parameter]["Default"])
        if value is not None:
            found[name] = int(value)
    assert set(found) == {
        "NotificationFunction",
        "StockRepairFunction",
        "WebhookDeliveryFunction",
        "TrackingFunction",
        "LateShipmentsFunction",
    }
    return found


def concurrency(max_environments: int | None = None) -> dict[str, int]:
    specs = functions(URLS, "us-east-1", {}, environ={}, max_environments=max_environments)
    return {name: spec.concurrency for name, spec in specs.items()}


def test_each_function_gets_its_reserved_concurrency_or_the_default():
    found = concurrency()
    expected = {name: reserved().get(name, DEFAULT_CONCURRENCY) for name in found}
    assert found == expected
    assert found["NotificationFunction"] > DEFAULT_CONCURRENCY  # the cap below bites on it


def test_the_deliveries_run_in_the_environments_and_pollers_the_template_bounds(monkeypatch):
    """WebhookDeliveryConcurrency is both the delivery function's reserved concurrency
    and its queue mapping's maximum concurrency, locally as on AWS."""
    monkeypatch.setitem(LOCAL_PARAMETERS, "WebhookDeliveryConcurrency", "3")
    specs = functions(URLS, "us-east-1", {}, environ={})
    delivery = specs["WebhookDeliveryFunction"]
    (source,) = delivery.event_sources
    assert (delivery.concurrency, source.max_concurrency, delivery.scales) == (3, 3, False)
    capped = functions(URLS, "us-east-1", {}, environ={}, max_environments=1)
    assert capped["WebhookDeliveryFunction"].concurrency == 1


def test_lambda_max_environments_caps_every_function_and_raises_none():
    uncapped = concurrency()
    for cap in (1, 2, DEFAULT_CONCURRENCY + 1):
        capped = concurrency(
            LocalSettings.from_env({"LAMBDA_MAX_ENVIRONMENTS": str(cap)}).max_environments
        )
        assert capped == {name: min(n, cap) for name, n in uncapped.items()}


def test_lambda_max_environments_is_a_whole_number_of_at_least_one():
    assert LocalSettings.from_env({}).max_environments is None
    for value in ("0", "-2", "two", "1.5"):
        with pytest.raises(ConfigError, match="^LAMBDA_MAX_ENVIRONMENTS="):
            LocalSettings.from_env({"LAMBDA_MAX_ENVIRONMENTS": value})


def test_no_cap_leaves_a_function_without_an_environment():
    with pytest.raises(ValueError, match="at least one environment"):
        concurrency(0)
