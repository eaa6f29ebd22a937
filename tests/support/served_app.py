"""A Chalice app served over real HTTP in the test's own process (the stock check's or the
order lookup's target, a notification service to forward to), behind Chalice's local
gateway as `chalice local` corrects it (infra/chalice_local.py)."""

import base64
from http import HTTPStatus

from chalice.local import LocalChalice, LocalGatewayException

from infra.chalice_local import ApiGatewayLocalGateway, chalice_config
from infra.local.http_server import AppServer


class ChaliceWsgi:
    def __init__(self, app):
        # Served from many threads: the request per thread, as `chalice local` keeps it.
        app.__class__ = type(f"Threaded{type(app).__name__}", (LocalChalice, type(app)), {})
        self._gateway = ApiGatewayLocalGateway(app, chalice_config(app))

    def __call__(self, environ, start_response):
        method = environ["REQUEST_METHOD"]
        headers = {
            name[5:].replace("_", "-").lower(): value
            for name, value in environ.items()
            if name.startswith("HTTP_")
        }
        for name in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            if environ.get(name):
                headers[name.replace("_", "-").lower()] = environ[name]
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else None
        try:
            response = self._gateway.handle_request(
                "GET" if method == "HEAD" else method, environ["REQUEST_URI"], headers, body
            )
            status = response["statusCode"]
            headers = {**response["headers"], **response["multiValueHeaders"]}
            body = response["body"] or b""
            if response.get("isBase64Encoded"):
                body = base64.b64decode(body)
            elif isinstance(body, str):
                body = body.encode("utf-8")
        except LocalGatewayException as exc:
            status, headers, body = exc.CODE, dict(exc.headers), exc.body or b""
        headers.setdefault("Content-Type", "application/json")
        start_response(
            f"{status} {HTTPStatus(status).phrase}",
            [
                (name, value)
                for name, values in headers.items()
                for value in (values if isinstance(values, list) else [values])
            ]
            + [("Content-Length", str(len(body)))],
        )
        return [b"" if method == "HEAD" else body]


def serve(app):
    """The app on a free port of 127.0.0.1; stop() the answer."""
    return AppServer().serve(ChaliceWsgi(app))
