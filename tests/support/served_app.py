"""A Chalice app served over real HTTP in the test's own process (the stock check's or the
order lookup's target, a notification service to forward to), behind Chalice's local
gateway as `chalice local` corrects it (infra/chalice_local.py)."""

import base64

from chalice.local import LocalChalice, LocalGatewayException

from infra.chalice_local import ApiGatewayLocalGateway, chalice_config
from infra.local.http_server import AppServer, request_headers, respond


class ChaliceWsgi:
    def __init__(self, app):
        # Served from many threads: the request per thread, as `chalice local` keeps it.
        app.__class__ = type(f"Threaded{type(app).__name__}", (LocalChalice, type(app)), {})
        self._gateway = ApiGatewayLocalGateway(app, chalice_config(app))

    def __call__(self, environ, start_response):
        method = environ["REQUEST_METHOD"]
        headers = request_headers(environ)
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
        return respond(start_response, method, status, headers, body)


def serve(app):
    """The app on a free port of 127.0.0.1; stop() the answer."""
    return AppServer().serve(ChaliceWsgi(app))
