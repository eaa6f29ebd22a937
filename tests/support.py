"""Test helpers: a thin JSON client over chalice.test, and tokens."""

import json

from chalice.config import Config
from chalice.test import TestHTTPClient

from common import jsonio
from infra.local_gateway import ApiGatewayTestClient, thread_safe
from infra.local_token import local_token


class Api:
    """Sends JSON (or raw bytes) with an Authorization header unless told otherwise."""

    def __init__(self, http: TestHTTPClient, token: str | None = None):
        self.http = http
        self.token = token

    def request(self, method: str, path: str, body=None, *, raw: bytes | str | None = None,
                token: str | None = "default", headers: dict | None = None):
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


def body(response):
    """A response body as JSON with exact decimals (money is compared exactly)."""
    return jsonio.loads(response.body)


def error_code(response) -> str:
    return json.loads(response.body)["error"]


def _config() -> Config:
    return Config.create(chalice_stage="local")


def gateway_api() -> Api:
    from app import app

    return Api(ApiGatewayTestClient(app, _config()), local_token())


def notification_api() -> Api:
    from notifications.lambda_app import app

    return Api(TestHTTPClient(thread_safe(app), _config()))
