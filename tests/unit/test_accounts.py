"""The authorizer's question about a token's account (common.accounts): asked of the pool,
kept 30 s either way, and the last answer kept when the pool cannot be asked."""

from botocore.exceptions import ClientError, EndpointConnectionError

from common.accounts import CHECK_SECONDS, AccountCheck, revoke


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
    from common.settings import Settings

    assert Settings.from_env({}).account_check_seconds == CHECK_SECONDS
    assert Settings.from_env({"ACCOUNT_CHECK_SECONDS": "2"}).account_check_seconds == 2
    pool, clock = Pool({"ana": True}), Clock()
    check = AccountCheck(lambda: pool, "pool-1", clock, keep_seconds=2)
    assert check.active("ana") is True
    pool.users["ana"] = False
    clock.now += 2
    assert check.active("ana") is False


def test_when_the_pool_cannot_be_asked_the_last_answer_stands_and_none_is_unknown():
    pool, clock = Pool({"ana": False}), Clock()
    check = AccountCheck(lambda: pool, "pool-1", clock)
    assert check.active("ana") is False
    pool.down = True
    clock.now += CHECK_SECONDS
    assert check.active("ana") is False  # a revoked token stays refused
    assert check.active("someone") is None  # unknown: the authorizer lets the signature speak


def test_revoking_disables_the_account_and_signs_it_out_everywhere():
    pool = Pool({"ana": True})
    revoke(pool, "pool-1", "ana")
    assert pool.calls == [("disable", "ana"), ("sign out", "ana")]
    assert AccountCheck(lambda: pool, "pool-1").active("ana") is False
