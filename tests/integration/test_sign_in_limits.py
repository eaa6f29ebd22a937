"""Sign-in's limits against the emulator's table (auth.repository): guesses forgotten on
time whatever DynamoDB's TTL has done, and accounts per client address."""

import pytest

from auth.repository import DynamoAttempts, DynamoRegistrations
from auth.rules import FORGET_AFTER_SECONDS, attempts_key, next_attempts, registrations_key
from common.platform import aws
from common.platform.errors import TooManyRequests
from common.platform.settings import Cloud, Http
from tests.integration.test_user_ids import new_email, register


class Clock:
    def __init__(self, now: float = 1_800_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def acting(tables):
    with aws.acting_as("AuthFunction"):
        yield Cloud.from_env()


def test_a_count_is_forgotten_an_hour_after_its_last_try_though_the_ttl_left_it(acting):
    """DynamoDB deletes expired items up to days late (the emulator never does): a count
    read past its expiry starts again, so four old failures make no fifth."""
    clock = Clock()
    attempts, key = DynamoAttempts(acting, clock), attempts_key("ana@example.com", "10.1.1.1")
    for _ in range(4):
        attempts.claim(key, lambda current: next_attempts(current, clock()))
    clock.now += FORGET_AFTER_SECONDS + 1
    for _ in range(4):  # the old code counted on: the fifth locked, the sixth was 429
        attempts.claim(key, lambda current: next_attempts(current, clock()))


def test_an_address_makes_twenty_accounts_in_ten_minutes_and_takes_back_a_failed_one(acting):
    clock = Clock()
    registrations = DynamoRegistrations(acting, clock)
    here, there = registrations_key("10.2.2.2"), registrations_key("10.3.3.3")
    moments = []
    for _ in range(20):
        clock.now += 1
        moments.append(registrations.add(here))
    with pytest.raises(TooManyRequests) as refused:
        registrations.add(here)
    assert refused.value.retry_after_seconds == 600 - 19
    registrations.add(there)  # another address: its own count
    registrations.take_back(here, moments[-1])  # that one made no account
    registrations.add(here)
    clock.now += 600
    registrations.add(here)  # the first ones have left the window


def test_the_twenty_first_account_from_one_address_is_429_and_made_nowhere(signing_in, pool):
    """Through the gateway app (its client address is chalice's own, 127.0.0.1)."""
    for _ in range(20):
        answer = register(signing_in, new_email())
        assert answer.status_code == 201, answer.body
    email = new_email()
    refused = register(signing_in, email)
    assert refused.status_code == 429
    assert refused.headers["Retry-After"].isdigit()
    import boto3

    cognito = boto3.client("cognito-idp", endpoint_url=pool.url)
    with pytest.raises(cognito.exceptions.UserNotFoundException):
        cognito.admin_get_user(UserPoolId=pool.id, Username=email)


def test_one_caller_of_the_personal_data_routes_is_limited_per_minute(tables):
    """Every request about personal data writes a record and asks the pool (its quota is
    the account's): one caller made a thousand a second. Counted per caller and minute,
    in one conditional write each, as the users function's role allows."""
    from common.identity.attempts import CALLER_REQUESTS
    from common.identity.attempts_repository import DynamoAttempts as CallerCount

    clock = Clock(1_800_000_000.0)
    with aws.acting_as("UsersFunction"):
        counted = CallerCount(Cloud.from_env(), clock)
        for _ in range(CALLER_REQUESTS):
            counted.count_request("ana")
        with pytest.raises(TooManyRequests) as refused:
            counted.count_request("ana")
        assert refused.value.code == "TOO_MANY_REQUESTS"
        assert 1 <= refused.value.retry_after_seconds <= 60
        counted.count_request("bo")  # another caller: a count of its own
        clock.now += 60
        counted.count_request("ana")  # the next minute


def test_a_table_over_its_capacity_is_503_never_500():
    """A throttled counter (the record of requests' one) answered 500: load is a 503."""
    from botocore.exceptions import ClientError
    from pynamodb.exceptions import UpdateError

    from common.http.service_app import PlatformApp, ServiceBlueprint

    bp = ServiceBlueprint(__name__)

    @bp.route("/busy", methods=["GET"])
    def busy():
        error = {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "x"}}
        try:
            raise ClientError(error, "UpdateItem")
        except ClientError as exc:
            raise UpdateError("Failed to update item", cause=exc) from exc

    from common.http.service_app import create_app
    from tests.support.api import ApiGatewayTestClient

    bp.function = "UsersFunction"
    app: PlatformApp = create_app("test", Http(), bp)
    answer = ApiGatewayTestClient(app).get("/busy")
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "1"
