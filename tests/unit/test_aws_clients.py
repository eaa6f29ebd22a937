"""Whose a client is (common/platform/aws.py): every AWS call is made under one function's role,
the one its client was built for, however many functions share a process."""

import pytest

from common.platform import aws
from common.platform.settings import Cloud, Peers

SETTINGS = Cloud()


@pytest.fixture(autouse=True)
def fresh():
    aws.forget()
    yield
    aws.forget()


def test_a_client_is_the_acting_functions_own_and_says_so():
    with aws.acting_as("InventoryFunction"):
        inventory = aws.dynamodb(SETTINGS)
        assert aws.dynamodb(SETTINGS) is inventory  # built once
    with aws.acting_as("OrdersFunction"):
        orders = aws.dynamodb(SETTINGS)
    assert orders is not inventory
    assert (aws.owner(inventory), aws.owner(orders)) == ("InventoryFunction", "OrdersFunction")
    assert aws.owner(object()) is None


def test_code_no_function_runs_cannot_make_a_call_under_anyones_role():
    with pytest.raises(RuntimeError, match="no function is acting"):
        aws.dynamodb(SETTINGS)


def test_on_lambda_the_process_runs_its_one_function(monkeypatch):
    monkeypatch.setattr(aws, "HOME", "NotificationFunction")
    assert aws.owner(aws.lambda_client(SETTINGS, Peers())) == "NotificationFunction"
