"""The JWT authorizer: the token rules, who a token belongs to, and the Lambda handler."""

import time

import jwt
import pytest

from authorizer import lambda_app, shared_key
from authorizer.claims import InvalidToken, caller_of, token_in
from authorizer.policy import Unauthorized, authorize
from common.identity.callers import CUSTOMER, OPERATOR, Caller
from common.platform.env import ConfigError
from common.platform.keys import FixedRing
from common.platform.settings import Tokens
from infra.dev.tokens import issue
from tests.support.fake_lambda import lambda_context
from tests.support.tokens import BAD_HEADERS, SECRET, make_token

ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/GET/api/inventario"
RING = FixedRing(SECRET)


def verify(token: str, ring=RING) -> Caller:
    return shared_key.SharedKeyVerifier(ring)(token)


def handler(header: str) -> dict:
    return lambda_app.handler(
        {"type": "TOKEN", "authorizationToken": header, "methodArn": ARN},
        lambda_context("AuthorizerFunction"),
    )


def test_a_valid_token_yields_its_caller():
    assert verify(make_token()) == Caller("ana@example.com", OPERATOR)


def test_bearer_scheme_is_case_insensitive():
    assert token_in("bearer abc") == "abc"


@pytest.mark.parametrize("header", BAD_HEADERS.values(), ids=BAD_HEADERS.keys())
def test_bad_tokens_are_rejected_by_the_lambda_authorizer_with_unauthorized(header):
    with pytest.raises(Exception, match="^Unauthorized$"):
        handler(header)


def test_the_reason_of_a_refusal_is_kept_for_the_logs():
    with pytest.raises(Unauthorized) as err:
        authorize(BAD_HEADERS["expired"], ARN, shared_key.SharedKeyVerifier(RING))
    assert "expired" in err.value.reason


def test_the_lambda_authorizer_allows_the_whole_api_for_a_valid_token():
    policy = handler(f"Bearer {make_token()}")
    assert policy["principalId"] == "ana@example.com"
    statement = policy["policyDocument"]["Statement"][0]
    assert statement["Effect"] == "Allow"
    # Cached per token by API Gateway, so it must cover every route, not just this one.
    assert statement["Resource"] == ["arn:aws:execute-api:us-east-1:123456789012:abc123/prod/*"]


# -- who a token belongs to -----------------------------------------------------------------


def test_the_policy_passes_the_role_and_user_id_to_the_functions_never_more():
    customer = handler(f"Bearer {make_token(role='customer', userId=42)}")
    assert customer["context"] == {"sub": "ana@example.com", "role": "customer", "userId": "42"}
    assert handler(f"Bearer {make_token(role='operator')}")["context"] == {
        "sub": "ana@example.com",
        "role": "operator",
    }


def test_a_token_without_a_role_is_an_operators_as_every_token_was_before_roles():
    assert verify(make_token()).role == OPERATOR


@pytest.mark.parametrize("role", ["admin", "Operator", "", 7, None])
def test_a_role_the_platform_does_not_know_is_refused(role):
    claims = {"role": role} if role is not None else {"role": "superuser"}
    with pytest.raises(InvalidToken, match="role"):
        verify(make_token(**claims))


@pytest.mark.parametrize(
    "user_id",
    # "\u00b2" passes str.isdigit() and int() refuses it; int() reads Arabic-Indic and
    # full-width digits as a number: a userId is ASCII digits or nothing.
    [None, 0, -3, "abc", 1.5, True, "4.0", 2**63, str(2**63), "9" * 40, {"n": 1}]
    + ["\u00b2", "\u0664\u0662", "\uff14\uff12"],
)
def test_a_customer_without_a_positive_integer_user_id_is_refused(user_id):
    claims = {"role": "customer", "userId": user_id}
    if user_id is None:
        claims["userId"] = None  # make_token drops it: no userId at all
    with pytest.raises(InvalidToken, match="userId"):
        verify(make_token(**claims))


def test_a_customer_user_id_may_come_as_cognitos_string_attribute():
    claims = {"sub": "u", "exp": 1, "role": "customer", "custom:userId": "42"}
    assert caller_of(claims, OPERATOR) == Caller("u", CUSTOMER, 42)


def test_an_issuers_token_is_a_customers_unless_in_the_operators_group():
    base = {"sub": "u", "exp": 1, "userId": 9}
    assert caller_of(base, CUSTOMER).role == CUSTOMER
    assert caller_of({**base, "cognito:groups": ["operators"]}, CUSTOMER).role == OPERATOR
    assert caller_of({**base, "cognito:groups": ["staff"]}, CUSTOMER).role == CUSTOMER


def test_an_edited_role_fails_the_signature():
    header, payload, signature = make_token(role="customer", userId=3).split(".")
    forged = jwt.utils.base64url_encode(
        b'{"sub":"ana@example.com","role":"operator","exp":%d}' % (time.time() + 60)
    ).decode()
    with pytest.raises(InvalidToken):
        verify(f"{header}.{forged}.{signature}")


# -- token hygiene --------------------------------------------------------------------------


def test_a_token_without_exp_is_refused_whatever_its_signature():
    with pytest.raises(InvalidToken, match="exp"):
        verify(make_token(exp=None))
    with pytest.raises(Exception, match="^Unauthorized$"):
        handler("Bearer " + jwt.encode({"sub": "a"}, SECRET, "HS256"))


# A validly signed token whose time claims are of the wrong type: refused (401), never an
# error of the authorizer (which API Gateway would answer with 500).
WRONG_TYPES = {
    "exp a numeric string": {"exp": str(int(time.time()) + 60)},
    "exp a float string": {"exp": f"{time.time() + 60:.3f}"},
    "exp a boolean": {"exp": True},
    "exp a list": {"exp": [int(time.time()) + 60]},
    "exp an object": {"exp": {"n": 1}},
    "exp null": {"exp": None, "iat": int(time.time())},
    "iat a numeric string": {"iat": str(int(time.time()))},
    "nbf a numeric string": {"nbf": str(int(time.time()) - 10)},
    "nbf a boolean": {"nbf": False},
    "exp beyond any date": {"exp": 10**400},
    "iat not a number": {"iat": float("nan")},
    "exp infinite": {"exp": float("inf")},
    "sub a number": {"sub": 42},
}


@pytest.mark.parametrize("claims", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_a_time_claim_of_the_wrong_type_is_unauthorized_never_an_error(claims):
    now = int(time.time())
    payload = {"sub": "ana@example.com", "iat": now, "exp": now + 60, **claims}
    token = jwt.encode({k: v for k, v in payload.items() if k != "exp" or v is not None}, SECRET)
    with pytest.raises(InvalidToken):
        verify(token)
    with pytest.raises(Exception, match="^Unauthorized$"):
        handler(f"Bearer {token}")


def test_a_token_issued_in_the_future_is_refused_beyond_a_small_leeway():
    now = int(time.time())
    assert verify(make_token(iat=now + 5))  # clock skew
    with pytest.raises(InvalidToken, match="future"):
        verify(make_token(iat=now + 120, exp=now + 300))


def test_a_token_may_not_live_longer_than_a_day():
    now = int(time.time())
    assert verify(make_token(iat=now, exp=now + 24 * 3600))
    with pytest.raises(InvalidToken, match="more than"):
        verify(make_token(iat=now, exp=now + 24 * 3600 + 1))
    with pytest.raises(InvalidToken, match="more than"):
        verify(make_token(iat=None, exp=253402300799))  # the year 9999, no iat


def test_local_tokens_last_24_hours_and_name_their_key():
    token = issue("dev", RING.signing())
    claims = jwt.decode(token, SECRET, algorithms=["HS256"])
    assert claims["exp"] - claims["iat"] == 24 * 3600
    assert jwt.get_unverified_header(token)["kid"] == RING.signing().kid


def test_a_customers_local_token_carries_its_user_id():
    token = issue("c", RING.signing(), role=CUSTOMER, user_id=42)
    assert verify(token) == Caller("c", CUSTOMER, 42)


def test_a_token_naming_a_key_version_the_platform_does_not_hold_is_refused():
    token = jwt.encode(
        {"sub": "a", "exp": int(time.time()) + 60},
        SECRET,
        "HS256",
        headers={"kid": "some-other-version"},
    )
    with pytest.raises(InvalidToken, match="version"):
        verify(token)


def test_the_secret_comes_from_jwt_secret():
    secret = "a-deployment-secret-of-at-least-32-bytes"
    ring = FixedRing(Tokens.from_env({"JWT_SECRET": secret}).jwt_secret)
    token = issue("dev", ring.signing())
    assert verify(token, ring).sub == "dev"
    with pytest.raises(InvalidToken):
        verify(token)


def test_a_short_secret_is_refused():
    with pytest.raises(ConfigError, match="JWT_SECRET"):
        Tokens.from_env({"JWT_SECRET": "too-short"})


# -- the identity validation expression (API Gateway's, before the authorizer) --------------


@pytest.mark.parametrize(
    "header",
    [
        f"Bearer {make_token()}",
        f"bearer {make_token()}",
        f"BEARER  {make_token(role='customer', userId=1)}",
    ],
)
def test_every_bearer_token_header_passes_the_identity_validation(header):
    import re

    from infra import template

    assert re.search(template.identity_validation(), header)


@pytest.mark.parametrize(
    "header", ["Basic abc", "Bearer", "Bearer a b", "Bearer é", "", "x Bearer abc"]
)
def test_junk_fails_the_identity_validation(header):
    import re

    from infra import template

    assert not re.search(template.identity_validation(), header)


def test_each_concern_of_verifying_a_token_is_a_module_of_its_own():
    """What a token must claim and whose it is; the shared key's verifier; the OIDC
    issuer's verifier and its keys; the choice of one by the token's algorithm."""
    import importlib
    from pathlib import Path

    holds = {
        "claims": {"InvalidToken", "caller_of", "check_times", "decoded", "token_in"},
        "shared_key": {"ALGORITHM", "SharedKeyVerifier"},
        "oidc": {"OIDC_ALGORITHM", "IssuerKeys", "OidcVerifier"},
        "tokens": {"ByAlgorithm", "verifier_for"},
    }
    for name, names in holds.items():
        module = importlib.import_module(f"authorizer.{name}")
        assert names <= set(vars(module)), name
        assert len(Path(module.__file__).read_text().splitlines()) <= 200, name
