"""The JWT authorizer: the token rules and the Lambda handler."""


import pytest

from authorizer import lambda_app, tokens
from authorizer.policy import Unauthorized, authorize
from common.keys import FixedKey
from common.settings import ConfigError, Settings
from infra.local.invoke import lambda_context
from infra.local.tokens import issue
from tests.support.tokens import BAD_HEADERS, SECRET, make_token

ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/GET/api/inventario"


def test_a_valid_token_yields_its_claims():
    assert tokens.verify(make_token(), SECRET)["sub"] == "ana@example.com"


def test_bearer_scheme_is_case_insensitive():
    assert tokens.bearer_token("bearer abc") == "abc"


@pytest.mark.parametrize("header", BAD_HEADERS.values(), ids=BAD_HEADERS.keys())
def test_bad_tokens_are_rejected_by_the_lambda_authorizer_with_unauthorized(header):
    with pytest.raises(Exception, match="^Unauthorized$"):
        lambda_app.handler({"type": "TOKEN", "authorizationToken": header, "methodArn": ARN},
                           lambda_context("AuthorizerFunction"))


def test_the_reason_of_a_refusal_is_kept_for_the_logs():
    with pytest.raises(Unauthorized) as err:
        authorize(BAD_HEADERS["expired"], ARN, tokens.SharedKeyVerifier(FixedKey(SECRET)))
    assert "expired" in err.value.reason


def test_the_lambda_authorizer_allows_the_whole_api_for_a_valid_token():
    policy = lambda_app.handler({"type": "TOKEN", "authorizationToken": f"Bearer {make_token()}",
                                 "methodArn": ARN}, lambda_context("AuthorizerFunction"))
    assert policy["principalId"] == "ana@example.com"
    statement = policy["policyDocument"]["Statement"][0]
    assert statement["Effect"] == "Allow"
    # Cached per token by API Gateway, so it must cover every route, not just this one.
    assert statement["Resource"] == ["arn:aws:execute-api:us-east-1:123456789012:abc123/prod/*"]


def test_local_tokens_last_24_hours():
    claims = tokens.verify(issue("dev", SECRET), SECRET)
    assert claims["exp"] - claims["iat"] == 24 * 3600


def test_the_secret_comes_from_jwt_secret():
    secret = "a-deployment-secret-of-at-least-32-bytes"
    token = issue("dev", Settings.from_env({"JWT_SECRET": secret}).jwt_secret)
    assert tokens.verify(token, secret.encode())["sub"] == "dev"
    with pytest.raises(tokens.InvalidToken):
        tokens.verify(token, SECRET)


def test_a_short_secret_is_refused():
    with pytest.raises(ConfigError, match="JWT_SECRET"):
        Settings.from_env({"JWT_SECRET": "too-short"})
