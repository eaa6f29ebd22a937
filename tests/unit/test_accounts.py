"""The authorizer's question about a token's account (common.identity.accounts): asked of the pool,
kept 30 s either way, and the last answer kept when the pool cannot be asked."""

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from common.identity.accounts import CHECK_SECONDS, AccountCheck, revoke


class Pool:
    """A cognito-idp client's AdminGetUser over users {username: enabled}, counting calls."""

    def __init__(self, users: dict[str, bool]):
        self.users, self.asked, self.down = users, 0, False
        self.calls: list[tuple[str, str]] = []

    def admin_get_user(self, UserPoolId: str, Username: str) -> dict:  # noqa: N803 - boto3's
        self.asked += 1
        if self.down:
            raise EndpointConnectionError(endpoint_url="http://pool")
        if Username not in self.users:
            error = {"Error": {"Code": "UserNotFoundException", "Message": "gone"}}
            raise ClientError(error, "AdminGetUser")
        return {"Username": Username, "Enabled": self.users[Username]}

    def admin_disable_user(self, UserPoolId: str, Username: str) -> None:  # noqa: N803
        self.calls.append(("disable", Username))
        self.users[Username] = False

    def admin_user_global_sign_out(self, UserPoolId: str, Username: str) -> None:  # noqa: N803
        self.calls.append(("sign out", Username))


class Clock:
    now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_account_disabled_or_deleted_is_refused_within_the_check_time():
    pool, clock = Pool({"ana": True, "bo": True}), Clock()
    check = AccountCheck(lambda: pool, "pool-1", clock)
    assert check.active("ana") is True and check.active("bo") is True
    pool.users["ana"] = False
    del pool.users["bo"]
    assert check.active("ana") is True  # kept: not asked again within CHECK_SECONDS
    assert pool.asked == 2
    clock.now += CHECK_SECONDS
    assert (check.active("ana"), check.active("bo")) == (False, False)
    assert CHECK_SECONDS < 60  # API Gateway keeps no authorizer result (template)


def test_the_time_an_answer_is_kept_is_a_setting():
    """ACCOUNT_CHECK_SECONDS (the tests' stacks keep it short, not to wait 30 s)."""
    from common.platform.settings import Tokens

    assert Tokens.from_env({}).account_check_seconds == CHECK_SECONDS
    assert Tokens.from_env({"ACCOUNT_CHECK_SECONDS": "2"}).account_check_seconds == 2
    pool, clock = Pool({"ana": True}), Clock()
    check = AccountCheck(lambda: pool, "pool-1", clock, keep_seconds=2)
    assert check.active("ana") is True
    pool.users["ana"] = False
    clock.now += 2
    assert check.active("ana") is False


def test_the_time_an_answer_is_kept_is_bounded_by_the_60_seconds_promised():
    """A longer one kept revoked tokens working past the promise: refused at start."""
    from common.platform.env import ConfigError
    from common.platform.settings import Tokens

    assert Tokens.from_env({"ACCOUNT_CHECK_SECONDS": "60"}).account_check_seconds == 60
    for wrong in ("61", "3600", "1e9"):
        with pytest.raises(ConfigError, match="ACCOUNT_CHECK_SECONDS"):
            Tokens.from_env({"ACCOUNT_CHECK_SECONDS": wrong})


def test_when_nothing_can_be_asked_the_last_answer_stands_within_the_promise_then_none():
    """Fails closed: a pool that throttles or is down revives no token past the 60 s
    promised (it let every token pass on its signature, however long)."""
    pool, clock = Pool({"ana": False, "bo": True}), Clock()
    check = AccountCheck(lambda: pool, "pool-1", clock)
    assert check.active("ana") is False and check.active("bo") is True
    pool.down = True
    clock.now += CHECK_SECONDS
    assert check.active("ana") is False  # a revoked token stays refused
    assert check.active("bo") is True  # asked 30 s ago: within the promise
    clock.now += 60
    assert check.active("bo") is False  # past it: refused until it can be asked
    assert check.active("someone") is False  # never asked: refused


class Record:
    """The platform's record of revocations (common.identity.accounts.Revocations)."""

    def __init__(self):
        self.revoked_accounts: set[str] = set()
        self.down = False

    def record(self, username):
        self.revoked_accounts.add(username)

    def revoked(self, username):
        if self.down:
            raise EndpointConnectionError(endpoint_url="http://dynamodb")
        return username in self.revoked_accounts


def test_an_account_the_platform_revoked_is_refused_whatever_the_pool_answers():
    """Revoking records the account first: the authorizer reads that record before the
    pool, so a pool made to throttle (one caller could) revives no revoked token."""
    pool, record, clock = Pool({"ana": True, "bo": True}), Record(), Clock()
    revoke(pool, "pool-1", "ana", record)
    assert record.revoked_accounts == {"ana"}
    pool.users["ana"] = True  # enabled again in the pool: still revoked by the platform
    pool.down = True
    check = AccountCheck(lambda: pool, "pool-1", clock, revocations=record)
    assert check.active("ana") is False
    assert check.active("bo") is True  # the record's word stands while the pool is down
    record.down = True
    clock.now += 90
    assert check.active("bo") is False  # neither can say, past the promise: refused


def test_revoking_disables_the_account_and_signs_it_out_everywhere():
    pool = Pool({"ana": True})
    revoke(pool, "pool-1", "ana")
    assert pool.calls == [("disable", "ana"), ("sign out", "ana")]
    assert AccountCheck(lambda: pool, "pool-1").active("ana") is False
