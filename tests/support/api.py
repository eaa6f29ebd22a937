"""Driving the apps in-process through chalice.test, as API Gateway would call them."""

import json

from chalice.test import TestHTTPClient

from common.platform import jsonio
from infra.chalice_local import ApiGatewayLocalGateway, chalice_config
from infra.dev.tokens import local_token


class ApiGatewayTestClient(TestHTTPClient):
    """chalice.test's HTTP client with the local gateway's API Gateway behaviour (401s)."""

    def __init__(self, app):
        super().__init__(app, chalice_config(app))
        self._local_gateway = ApiGatewayLocalGateway(app, self._config)


class Api:
    """Sends JSON (or raw bytes) with an Authorization header unless told otherwise."""

    def __init__(self, app, token: str | None = None):
        self.app = app
        self.http = ApiGatewayTestClient(app)
        self.token = token

    def request(
        self,
        method: str,
        path: str,
        body=None,
        *,
        raw: bytes | str | None = None,
        token: str | None = "default",
        headers: dict | None = None,
    ):
        sent = {"Content-Type": "application/json", **(headers or {})}
        token = self.token if token == "default" else token
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        if raw is None and body is not None:
            raw = jsonio.dumps(body)
        return self.http.request(method, path, headers=sent, body=raw or b"")

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.request("PUT", path, body, **kw)

    def patch(self, path, body=None, **kw):
        return self.request("PATCH", path, body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


def gateway_api(settings) -> Api:
    """With a token signed with the settings' key; none when the key is a secret's (the
    test signs its own)."""
    from app import create_gateway

    tokens = settings.tokens
    token = local_token(tokens) if tokens.jwt_secret is not None else None
    return Api(create_gateway(settings), token)


def notification_api(http) -> Api:
    from notifications.wiring import create as app_for

    return Api(app_for(http))


def body(response):
    """A response body as JSON with exact decimals (money is compared exactly)."""
    return jsonio.loads(response.body)


def error_code(response) -> str:
    return json.loads(response.body)["error"]
