"""The stock check's breaker shared by every execution environment of the orders function
(orders/breaker_state.py): its state in one item of CircuitBreakersTable, in the emulator.
Each "environment" here is a StockChecker of its own, as each Lambda sandbox holds one."""

import threading
import time

import pytest

from common import aws
from common.callers import SYSTEM
from common.service_calls import CallFailed, OnBehalf
from common.settings import Settings
from orders.breaker_state import DynamoDBBreakerState
from orders.rules import InventoryUnavailable, StockAnswer
from orders.stock_client import StockChecker

WHO = OnBehalf(SYSTEM, token=None, gateway_url="http://unused")


class Inventory:
    """Up (answers true) or down (every call fails), as told."""

    def __init__(self):
        self.down, self.calls = False, 0

    def get(self, route, path_parameters, query, on_behalf):
        self.calls += 1
        if self.down:
            raise CallFailed("connection refused")
        return 200, b"true"


@pytest.fixture
def environments(tables):
    inventory = Inventory()
    with aws.acting_as("OrdersFunction"):
        settings = Settings.from_env()

        def environment(fail_max=3, reset_seconds=30.0):
            state = DynamoDBBreakerState(aws.dynamodb(settings), "CircuitBreakersTable")
            return StockChecker(
                fail_max=fail_max, reset_seconds=reset_seconds, inventory=inventory, state=state
            )

        yield inventory, environment


def outcome(environment) -> str:
    try:
        return environment.check(1, 1, WHO).name
    except InventoryUnavailable:
        return "503"


def test_an_outage_opens_the_breaker_after_fail_max_failures_in_all_not_in_each(environments):
    inventory, environment = environments
    many = [environment(fail_max=3) for _ in range(6)]
    inventory.down = True
    answers = [outcome(env) for _ in range(4) for env in many]  # every environment, in turn
    assert answers.count("NOT_CONFIRMED") == 2  # the third failure opens it: 503
    assert answers[2:] == ["503"] * (len(answers) - 2)
    calls = inventory.calls
    time.sleep(1.1)  # every environment has read the open state by now
    assert [outcome(env) for env in many] == ["503"] * 6
    assert inventory.calls == calls  # none asked the inventory again


def test_at_once_no_more_than_fail_max_answers_are_the_fallback(environments):
    inventory, environment = environments
    many = [environment(fail_max=5) for _ in range(8)]
    inventory.down = True
    start = threading.Barrier(len(many))
    answers = []

    def burst(env):
        start.wait()
        answers.extend(outcome(env) for _ in range(3))

    threads = [threading.Thread(target=burst, args=(env,)) for env in many]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers.count("NOT_CONFIRMED") <= 5
    assert set(answers) == {"NOT_CONFIRMED", "503"}


def test_after_the_reset_exactly_one_environment_runs_the_trial(environments):
    inventory, environment = environments
    many = [environment(fail_max=1, reset_seconds=0.5) for _ in range(6)]
    inventory.down = True
    assert outcome(many[0]) == "503"
    inventory.down = False
    time.sleep(1.1)
    calls, start, answers = inventory.calls, threading.Barrier(6), []

    def at_once(env):
        start.wait()
        answers.append(outcome(env))

    threads = [threading.Thread(target=at_once, args=(env,)) for env in many]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert inventory.calls == calls + 1  # one trial
    assert answers.count(StockAnswer.AVAILABLE.name) == 1
    time.sleep(1.1)
    assert [outcome(env) for env in many] == [StockAnswer.AVAILABLE.name] * 6  # closed


def test_a_healthy_order_pays_no_write_and_a_read_a_second_at_most(environments, aws_calls):
    inventory, environment = environments
    env = environment()
    aws_calls.clear()
    started = time.monotonic()
    for _ in range(30):
        assert outcome(env) == StockAnswer.AVAILABLE.name
    elapsed = time.monotonic() - started
    operations = [operation for _, operation, _ in aws_calls]
    assert "UpdateItem" not in operations
    assert operations.count("GetItem") <= elapsed + 1


def test_a_success_after_failures_starts_the_count_again(environments):
    inventory, environment = environments
    first, second = environment(fail_max=3), environment(fail_max=3)
    inventory.down = True
    assert [outcome(first), outcome(second)] == ["NOT_CONFIRMED", "NOT_CONFIRMED"]
    inventory.down = False
    assert outcome(first) == StockAnswer.AVAILABLE.name
    inventory.down = True
    time.sleep(1.1)  # the second reads the reset count
    assert [outcome(second), outcome(first)] == ["NOT_CONFIRMED", "NOT_CONFIRMED"]
