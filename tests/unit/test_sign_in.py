"""Sign-in's rules and use cases, against fakes of the pool and of the attempts' table."""

import pytest

from auth import rules, service
from auth.rules import PASSWORD_POLICY, Attempts, Credentials, Registration
from common.platform.errors import Invalid, TooManyRequests, Unauthenticated, Unavailable
from infra import template

GOOD = "A-long-Passphrase-2026"


def test_the_templates_pool_has_the_password_policy_the_code_checks():
    (pool,) = template.resources("AWS::Cognito::UserPool").values()
    assert pool["Properties"]["Policies"]["PasswordPolicy"] == PASSWORD_POLICY.as_template()
    assert pool["Properties"]["UsernameAttributes"] == ["email"]
    (client,) = template.resources("AWS::Cognito::UserPoolClient").values()
    assert client["Properties"]["PreventUserExistenceErrors"] == "ENABLED"
    # No password flow of the public client's own: the API's (an administrator's) alone.
    assert set(client["Properties"]["ExplicitAuthFlows"]) == {
        "ALLOW_ADMIN_USER_PASSWORD_AUTH",
        "ALLOW_REFRESH_TOKEN_AUTH",
    }


@pytest.mark.parametrize(
    "password, allowed",
    [
        (GOOD, True),
        ("Short1a", False),
        ("no-uppercase-2026", False),
        ("NO-LOWERCASE-2026", False),
        ("No-Numbers-At-All", False),
        ("A" * 250 + "a1", True),
        ("A" * 260 + "a1", False),
    ],
)
def test_the_policy(password, allowed):
    assert PASSWORD_POLICY.allows(password) is allowed


def test_a_registration_is_one_400_naming_every_bad_field_and_ignores_a_role():
    with pytest.raises(Invalid) as refused:
        rules.parse_registration({"email": "nope", "password": "weak"})
    fields = {d["field"]: d["message"] for d in refused.value.details}
    assert fields["email"] == "must be an email address"
    assert fields["password"] == (
        "must be at least 12 characters, with a lowercase letter, an uppercase letter and a number"
    )
    parsed = rules.parse_registration(
        {"email": " Ana@Example.COM ", "password": GOOD, "rol": "operator", "userId": 1}
    )
    assert parsed == Registration("ana@example.com", GOOD, None)


@pytest.mark.parametrize(
    "written",
    [
        "ana@example.com",
        " Ana@Example.COM ",
        "\uff21\uff4e\uff41@example.com",  # fullwidth letters
        "ana\uff20example\uff0ecom",  # fullwidth @ and .
        "\u3000ANA@EXAMPLE.COM\u3000",  # ideographic spaces around it
        "\u1d2c\u1d3a\u1d2c@example.com",  # modifier capitals: NFKC makes them ANA
        "an\u200ba@example.com",  # a zero-width space: invisible
        "a\u2060na@exam\u00adple.com",  # a word joiner, a soft hyphen
        "\ufeffana@example.com",  # a byte order mark
    ],
)
def test_an_email_is_one_account_whatever_its_case_or_unicode_form(written):
    """Trimmed, NFKC-normalised and lower-cased, in registering and in signing in
    (docs/api.md#signing-in), and the key of its attempts with them."""
    assert rules.normal_email(written) == "ana@example.com"
    assert rules.parse_registration({"email": written, "password": GOOD}).email == "ana@example.com"
    assert rules.parse_credentials({"email": written, "password": "x"}).email == "ana@example.com"
    assert rules.attempts_key(written, "10.0.0.1") == rules.attempts_key(
        "ana@example.com", "10.0.0.1"
    )


def test_normalising_an_email_twice_changes_nothing_more():
    for written in ("\u0130stanbul@EXAMPLE.com", "\u212aelvin@example.com", "Stra\u00dfe@x.de"):
        once = rules.normal_email(written)
        assert rules.normal_email(once) == once


def test_guesses_wait_after_five_each_lock_twice_the_last_at_most_fifteen_minutes():
    now, attempts = 1000.0, Attempts()
    for count in range(1, 5):
        attempts = rules.next_attempts(attempts, now)
        assert attempts == Attempts(count, None)
    attempts = rules.next_attempts(attempts, now)  # the fifth goes through, and locks
    assert attempts == Attempts(5, now + 30)
    with pytest.raises(TooManyRequests) as slowed:
        rules.next_attempts(attempts, now + 10)
    assert slowed.value.retry_after_seconds == 20
    attempts = rules.next_attempts(attempts, now + 30)
    assert attempts == Attempts(6, now + 30 + 60)
    assert [rules.lock_seconds(n) for n in (4, 5, 6, 7, 10, 50)] == [0, 30, 60, 120, 900, 900]
    assert attempts.expires_at(now) == int(now + 90 + rules.FORGET_AFTER_SECONDS)


class FakePool:
    def __init__(self):
        self.users: dict[str, tuple[str, int]] = {}

    def create_customer(self, registration, user_id):
        self.users[registration.email] = (registration.password, user_id)
        return f"username-{user_id}"

    def remove_customer(self, email):
        self.users.pop(email, None)

    def sign_in(self, credentials):
        if self.users.get(credentials.email, ("", 0))[0] != credentials.password:
            raise service.WrongCredentials()
        return f"token-of-{credentials.email}"


class FakeAttempts:
    def __init__(self):
        self.kept: dict[str, Attempts] = {}

    def claim(self, key, step):
        self.kept[key] = step(self.kept.get(key, Attempts()))

    def forget(self, key):
        self.kept.pop(key, None)


class FakeIds:
    """Claims in memory: the ids `taken` are skipped."""

    def __init__(self, taken=()):
        self.taken, self.accounts = set(taken), {}

    def new_account(self, next_id):
        while (user_id := next_id()) in self.taken:
            pass
        self.taken.add(user_id)
        self.accounts[user_id] = "pending"
        return user_id

    def account_created(self, user_id, username=None, email=None):
        self.accounts[user_id] = ("active", username)

    def account_not_created(self, user_id):
        del self.accounts[user_id]


class FakeRegistrations:
    """The accounts made per address, by the rules' window."""

    def __init__(self, clock=lambda: 100.0):
        self.made: dict[str, tuple[float, ...]] = {}
        self.clock = clock

    def add(self, key):
        now = self.clock()
        self.made[key] = rules.next_registrations(self.made.get(key, ()), now)
        return now

    def take_back(self, key, moment):
        self.made[key] = rules.without(self.made[key], moment)


def registrar(pool, claims=None, ids=None, registrations=None) -> service.Registrar:
    numbers = iter(ids or range(1, 1000))
    return service.Registrar(
        pool, claims or FakeIds(), lambda: next(numbers), registrations or FakeRegistrations()
    )


HERE = "10.0.0.1"


def test_register_then_sign_in_and_every_refusal_is_the_same_401():
    pool, attempts, claims = FakePool(), FakeAttempts(), FakeIds(taken=[6])
    account = service.register(
        Registration("ana@x.co", GOOD, None), HERE, registrar(pool, claims, [6, 7, 8])
    )
    assert claims.accounts == {7: ("active", "username-7")}  # the claim names the account
    assert (account.email, account.user_id, account.rol) == ("ana@x.co", 7, "customer")
    assert service.sign_in(Credentials("ana@x.co", GOOD), HERE, pool, attempts) == (
        "token-of-ana@x.co"
    )
    refusals = []
    for tried in (Credentials("ana@x.co", "wrong"), Credentials("nobody@x.co", GOOD)):
        with pytest.raises(Unauthenticated) as refused:
            service.sign_in(tried, HERE, pool, attempts)
        refusals.append((refused.value.code, refused.value.message))
    assert refusals[0] == refusals[1] == ("INVALID_CREDENTIALS", refusals[0][1])


def test_a_success_forgets_the_count_and_a_lock_stops_even_the_right_password():
    pool, attempts = FakePool(), FakeAttempts()
    service.register(Registration("bo@x.co", GOOD, None), HERE, registrar(pool))
    clock = lambda: 50.0  # noqa: E731
    for _ in range(5):
        with pytest.raises(Unauthenticated):
            service.sign_in(Credentials("bo@x.co", "wrong"), HERE, pool, attempts, clock)
    with pytest.raises(TooManyRequests):
        service.sign_in(Credentials("bo@x.co", GOOD), HERE, pool, attempts, clock)
    # From another address the owner signs in: the guesses were counted for that one.
    assert service.sign_in(Credentials("bo@x.co", GOOD), "10.9.9.9", pool, attempts, clock)
    later = lambda: 81.0  # noqa: E731
    assert service.sign_in(Credentials("bo@x.co", GOOD), HERE, pool, attempts, later)
    assert attempts.kept == {}


def test_a_count_past_its_hour_is_forgotten_whether_or_not_the_ttl_deleted_it():
    stored = Attempts(4, None)
    assert rules.kept_attempts(stored, 2000.0, 1999.0) == stored
    assert rules.kept_attempts(stored, 2000.0, 2000.0) == Attempts()


def test_twenty_accounts_an_address_in_ten_minutes_then_429_until_the_oldest_leaves():
    made: tuple[float, ...] = ()
    for n in range(20):
        made = rules.next_registrations(made, 1000.0 + n)
    with pytest.raises(TooManyRequests) as refused:
        rules.next_registrations(made, 1100.0)
    assert refused.value.code == "TOO_MANY_REGISTRATIONS"
    assert refused.value.retry_after_seconds == 500  # the first, made at 1000, leaves at 1600
    assert len(rules.next_registrations(made, 1600.5)) == 20  # it left; one more came in
    assert len(rules.without(made, 1005.0)) == 19


def test_a_registration_the_pool_could_not_make_gives_its_place_back():
    class Down(FakePool):
        def create_customer(self, registration, user_id):
            from common.platform.errors import Unavailable

            raise Unavailable("SIGN_IN_UNAVAILABLE", "down", retry_after_seconds=5)

    registrations = FakeRegistrations()
    with pytest.raises(Exception, match="down"):
        service.register(
            Registration("x@x.co", GOOD, None), HERE, registrar(Down(), None, None, registrations)
        )
    assert registrations.made[rules.registrations_key(HERE)] == ()


def test_a_registration_of_a_taken_email_counts_against_the_address():
    """Else one address tests emails for existence without limit, a userId burnt each."""

    class Taken(FakePool):
        def create_customer(self, registration, user_id):
            from common.platform.errors import Conflict

            raise Conflict("EMAIL_TAKEN", "taken", details=[])

    registrations = FakeRegistrations()
    for _ in range(rules.REGISTRATIONS_PER_ADDRESS):
        with pytest.raises(Exception, match="taken"):
            service.register(
                Registration("x@x.co", GOOD, None),
                HERE,
                registrar(Taken(), None, None, registrations),
            )
    with pytest.raises(TooManyRequests):
        service.register(
            Registration("x@x.co", GOOD, None), HERE, registrar(Taken(), None, None, registrations)
        )


def test_an_account_its_claim_could_not_name_is_undone_never_left_unnamed():
    """A claim that does not name its account leads no erasure to it: the write is never
    suppressed; the account made is removed and the registration can be sent again."""

    class Failing(FakeIds):
        def account_created(self, user_id, username=None, email=None):
            raise RuntimeError("the table failed")

    pool, claims = FakePool(), Failing()
    with pytest.raises(Unavailable):
        service.register(Registration("cy@x.co", GOOD, None), HERE, registrar(pool, claims))
    assert pool.users == {} and claims.accounts == {}


def test_an_ipv6_client_is_counted_by_its_64_and_an_ipv4_one_by_itself():
    """One subscriber holds a whole /64: counted apart, each address was a client of
    its own, 2**64 of them for one guesser."""
    from common.http.readers import counted_address

    first, other = "2001:db8:1:2:aaaa::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"
    assert counted_address(first) == counted_address(other) == "2001:db8:1:2::/64"
    assert counted_address("2001:db8:1:3::1") != counted_address(first)
    assert counted_address("::ffff:10.0.0.1") == counted_address("10.0.0.1") == "10.0.0.1"
    assert counted_address("10.0.0.2") != counted_address("10.0.0.1")


class LockedPool:
    """A cognito-idp client whose pool has locked the account (Cognito's own lockout)."""

    def admin_initiate_auth(self, **_):
        from botocore.exceptions import ClientError

        error = {"Code": "NotAuthorizedException", "Message": "Password attempts exceeded"}
        raise ClientError({"Error": error}, "AdminInitiateAuth")


def test_the_pools_own_lockout_is_a_wait_not_a_wrong_password():
    """Cognito locks an account after repeated failures, whoever fails: that is 429 with
    Retry-After, never the 401 that tells the owner their password is wrong."""
    from auth.pool import CognitoPool
    from users.pool import Accounts

    with pytest.raises(TooManyRequests) as waited:
        CognitoPool(LockedPool(), "pool-1", "client-1").sign_in(Credentials("a@x.co", GOOD))
    assert waited.value.code == "TOO_MANY_ATTEMPTS" and waited.value.retry_after_seconds >= 1
    with pytest.raises(TooManyRequests):
        Accounts(LockedPool, "pool-1", "client-1").password_is("a@x.co", GOOD)


def test_the_users_routes_count_every_password_check_right_or_wrong():
    """An email change (or an erasure) with the right password counted nothing: a caller
    holding a token and the password made pool calls, mails and answers about who has an
    email without limit. Counted per account and client address, never forgotten by a
    success; the sign-in's count from there too."""
    from users.pool import CountedPasswords

    class Right:
        def password_is(self, email, password):
            return password == GOOD

    attempts = FakeAttempts()
    checks = CountedPasswords(Right(), attempts, clock=lambda: 100.0)
    assert [checks.check("a@x.co", GOOD, HERE, 7) for _ in range(5)] == [True] * 5
    with pytest.raises(TooManyRequests):
        checks.check("a@x.co", GOOD, HERE, 7)
    # Another account from the same address, or the same from elsewhere, is its own count.
    assert checks.check("b@x.co", GOOD, HERE, 8) is True
    assert checks.check("a@x.co", GOOD, "10.9.9.9", 7) is True
