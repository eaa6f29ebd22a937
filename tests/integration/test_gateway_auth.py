"""The gateway's authorizer as clients meet it: API Gateway's 401 for every bad token."""

import json

import pytest

from tests.support.api import body
from tests.support.tokens import BAD_HEADERS


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


def test_every_gateway_route_has_the_authorizer_but_the_root_signing_in_and_tracking():
    from app import app

    routes = {
        (path, method): entry.authorizer
        for path, methods in app.routes.items()
        for method, entry in methods.items()
    }
    assert routes.pop(("/", "GET")) is None  # the index: what the API is, no token
    # Signing in: how a caller gets a token.
    assert routes.pop(("/api/auth/login", "POST")) is None
    assert routes.pop(("/api/auth/register", "POST")) is None
    # Tracking without a token: the public look-up, and carriers' signed events
    # (docs/api.md#tracking).
    assert routes.pop(("/api/seguimiento/{codigoSeguimiento}", "GET")) is None
    assert routes.pop(("/api/transportistas/{codigo}/eventos", "POST")) is None
    assert routes, "the gateway has no routes"
    assert {auth.name for auth in routes.values()} == {"jwt_authorizer"}


def test_a_failing_authorizer_is_a_500_never_a_pass(api, monkeypatch):
    def broken(*_args):
        raise RuntimeError("secret store unreachable")

    monkeypatch.setattr("app.authorize", broken)
    response = api.get("/api/inventario")
    assert response.status_code == 500
