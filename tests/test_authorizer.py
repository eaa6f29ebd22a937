"""The JWT authorizer: the rules, the Lambda handler, and 401s through the gateway."""

import base64
import json
import time

import jwt
import pytest

from authorizer import handler, tokens
from common import config
from tests.support import body

SECRET = config.LOCAL_JWT_SECRET.encode()
ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/GET/api/inventario"


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def make_token(secret=SECRET, **claims) -> str:
    now = int(time.time())
    payload = {"sub": "ana@example.com", "iat": now, "exp": now + 60, **claims}
    return jwt.encode({k: v for k, v in payload.items() if v is not None}, secret, "HS256")


def unsigned_token() -> str:
    return f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64({'sub': 'ana@example.com'})}."


def tampered_token() -> str:
    header, _, signature = make_token().split(".")
    return f"{header}.{_b64({'sub': 'admin@example.com'})}.{signature}"


BAD_HEADERS = {
    "other scheme": f"Basic {make_token()}",
    "no scheme": make_token(),
    "empty bearer": "Bearer ",
    "malformed": "Bearer not-a-jwt",
    "wrong key": f"Bearer {make_token(secret=b'another-secret-that-is-32-bytes-long!')}",
    "alg none": f"Bearer {unsigned_token()}",
    "tampered payload": f"Bearer {tampered_token()}",
    "expired": f"Bearer {make_token(exp=int(time.time()) - 10)}",
    "not yet valid": f"Bearer {make_token(nbf=int(time.time()) + 3600)}",
    "no subject": f"Bearer {make_token(sub=None)}",
    "HS512 with the right key": "Bearer " + jwt.encode(
        {"sub": "ana@example.com"}, SECRET + b"-padded-for-hs512-key-length-rules", "HS512"),
}


def test_a_valid_token_yields_its_claims():
    assert tokens.verify(make_token(), SECRET)["sub"] == "ana@example.com"


def test_bearer_scheme_is_case_insensitive():
    assert tokens.bearer_token("bearer abc") == "abc"


@pytest.mark.parametrize("header", BAD_HEADERS.values(), ids=BAD_HEADERS.keys())
def test_bad_tokens_are_rejected_by_the_lambda_authorizer_with_unauthorized(header):
    with pytest.raises(Exception, match="^Unauthorized$"):
        handler.handler({"type": "TOKEN", "authorizationToken": header, "methodArn": ARN}, None)


def test_the_lambda_authorizer_allows_the_whole_api_for_a_valid_token():
    policy = handler.handler({"type": "TOKEN", "authorizationToken": f"Bearer {make_token()}",
                              "methodArn": ARN}, None)
    assert policy["principalId"] == "ana@example.com"
    statement = policy["policyDocument"]["Statement"][0]
    assert statement["Effect"] == "Allow"
    # Cached per token by API Gateway, so it must cover every route, not just this one.
    assert statement["Resource"] == ["arn:aws:execute-api:us-east-1:123456789012:abc123/prod/*"]


def test_issued_tokens_last_24_hours():
    claims = tokens.verify(tokens.issue("dev", SECRET), SECRET)
    assert claims["exp"] - claims["iat"] == 24 * 3600


def test_the_secret_comes_from_jwt_secret(monkeypatch):
    secret = "a-deployment-secret-of-at-least-32-bytes"
    monkeypatch.setenv("JWT_SECRET", secret)
    token = tokens.issue("dev", config.jwt_secret())
    assert tokens.verify(token, secret.encode())["sub"] == "dev"
    with pytest.raises(tokens.InvalidToken):
        tokens.verify(token, SECRET)


def test_a_short_secret_is_refused(monkeypatch):
    monkeypatch.setenv("JWT_SECRET", "too-short")
    with pytest.raises(config.ConfigError):
        config.jwt_secret()


@pytest.mark.parametrize("header", BAD_HEADERS.values(), ids=BAD_HEADERS.keys())
def test_the_gateway_answers_bad_tokens_with_api_gateways_401(api, header):
    response = api.get("/api/inventario", token=None, headers={"Authorization": header})
    assert response.status_code == 401
    assert json.loads(response.body) == {"message": "Unauthorized"}


def test_a_missing_header_gets_401(api):
    response = api.get("/api/inventario", token=None)
    assert response.status_code == 401
    assert json.loads(response.body) == {"message": "Unauthorized"}


def test_a_valid_token_passes(api):
    assert api.get("/api/inventario").status_code == 200
    assert body(api.get("/api/inventario")) == []


def test_every_gateway_route_has_the_authorizer():
    from app import app

    routes = [(path, method, entry.authorizer)
              for path, methods in app.routes.items() for method, entry in methods.items()]
    assert routes, "the gateway has no routes"
    assert {auth.name for _, _, auth in routes} == {"jwt_authorizer"}


def test_a_failing_authorizer_is_a_500_never_a_pass(api, monkeypatch):
    def broken(*_args):
        raise RuntimeError("secret store unreachable")

    monkeypatch.setattr("app.authorize", broken)
    response = api.get("/api/inventario")
    assert response.status_code == 500
