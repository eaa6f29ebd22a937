"""The local API Gateway: the Chalice apps behind waitress, answering as API Gateway would.

waitress is the HTTP server (a real listen backlog, chunked bodies, a request-size limit
enforced before a body is read, idle connections closed, no thread held by a slow
client). A thin WSGI adapter hands each request to Chalice's local gateway, corrected
where clients can tell it from API Gateway:

- A bad token: API Gateway turns an authorizer failing with "Unauthorized" into
  401 {"message":"Unauthorized"}; Chalice's local gateway drops the connection.
- A path no route has: 403 {"message":"Missing Authentication Token"}, whatever the
  Authorization header holds (Chalice's crashes on one that is not ASCII).
- `/api/inventario/1;2` is the id "1;2" (a 400), not 1: Chalice matches routes with
  urlparse, which cuts ";params" off the last segment.
- HEAD is GET without a body; TRACE and unknown methods are 405 in the platform's error
  format, as are the errors waitress answers itself (400, 413, 431).
- Each event carries a request id in requestContext, as API Gateway's do, so logs have
  a correlation id locally too.

Besides the API, a server may answer a few fixed pages of its own (the gateway's
`/openapi.json` and `/docs`, infra/local/docs.py) without a token: they are not routes
of the deployed API.
"""

import base64
import re
import socket
import time
import uuid
from collections.abc import Mapping
from http import HTTPStatus

from chalice.config import Config
from chalice.local import (
    ForbiddenError,
    InvalidAuthorizerError,
    LambdaEventConverter,
    LocalGateway,
    LocalGatewayAuthorizer,
    LocalGatewayException,
    NotAuthorizedError,
    RouteMatcher,
)
from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.server import create_server
from waitress.task import ErrorTask

from authorizer.policy import Unauthorized
from common.responses import error_response
from common.service_app import MAX_BODY_BYTES, log_request
from infra import template
from infra.local.docs import Page
from infra.local.servers import BackgroundServer
from infra.local.settings import DEFAULT_IDLE_TIMEOUT_SECONDS
from infra.local.throttle import TOO_MANY_BODY, TokenBucket

UNAUTHORIZED_BODY = b'{"message":"Unauthorized"}'
NO_ROUTE_BODY = b'{"message":"Missing Authentication Token"}'
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD")
PAGE_METHODS = ("GET", "HEAD")
# How long a stopping server waits for the requests it has received to be answered.
DRAIN_SECONDS = 5
# What a chunked body's framing may add to its 1 MiB before waitress stops reading it.
CHUNK_FRAMING_ALLOWANCE = 64 * 1024
# Each request is a Lambda invocation, and an order's stock check comes back in as a
# request of its own: enough threads that waiting orders cannot starve their checks.
THREADS = 64


def _allowed_origin(app) -> str | None:
    return getattr(app.api.cors, "allow_origin", None)


class ApiGatewayAuthorizer(LocalGatewayAuthorizer):
    def __init__(self, app_object):
        super().__init__(app_object)
        self._app = app_object
        expression = template.identity_validation()
        self._identity = re.compile(expression) if expression else None

    def authorize(self, raw_path, lambda_event, lambda_context):
        started = time.perf_counter()
        request_id = {"x-amzn-RequestId": lambda_context.aws_request_id}
        header = (lambda_event.get("headers") or {}).get("authorization")
        try:
            if header is not None and self._identity and not self._identity.search(header):
                # API Gateway's identity validation: refused before the authorizer runs.
                raise Unauthorized("the Authorization header is not a Bearer token")
            return super().authorize(raw_path, lambda_event, lambda_context)
        except NotAuthorizedError:  # Chalice's own, for a missing header
            reason = "no Authorization header"
        except LocalGatewayException:
            raise
        except Unauthorized as exc:
            reason = exc.reason
        except Exception as exc:
            # Any other authorizer failure is a 500 on API Gateway, never a pass.
            raise InvalidAuthorizerError(
                {**request_id, "x-amzn-ErrorType": "AuthorizerConfigurationException"},
                b'{"message":null}') from exc
        self._log_refusal(lambda_event, reason, started)
        headers = {**request_id, "x-amzn-ErrorType": "UnauthorizedException"}
        origin = _allowed_origin(self._app)
        if origin:  # the template's GatewayResponses add it on AWS
            headers["Access-Control-Allow-Origin"] = origin
        raise NotAuthorizedError(headers, UNAUTHORIZED_BODY) from None

    def _log_refusal(self, event, reason: str, started: float) -> None:
        """The one log line of a request the authorizer turned away."""
        context = event["requestContext"]
        log_request(self._app.logger, started, method=context["httpMethod"],
                    route=context["resourcePath"], path=context["path"], status=401,
                    reason=reason, correlation_id=context.get("requestId"))


class _WholeSegments(RouteMatcher):
    def match_route(self, url):
        matched = super().match_route(url.replace(";", "%3B"))
        return matched._replace(captured={name: value.replace("%3B", ";")
                                          for name, value in matched.captured.items()})


class ApiGatewayLocalGateway(LocalGateway):
    def __init__(self, app_object, config):
        super().__init__(app_object, config)
        self.event_converter = LambdaEventConverter(_WholeSegments(list(app_object.routes)),
                                                    app_object.api.binary_types)
        self._authorizer = ApiGatewayAuthorizer(app_object)

    def _generate_lambda_event(self, method, path, headers, body):
        try:
            event = super()._generate_lambda_event(method, path, headers, body)
        except ValueError:  # no route has this path
            raise ForbiddenError({"x-amzn-ErrorType": "MissingAuthenticationTokenException"},
                                 NO_ROUTE_BODY) from None
        event["requestContext"]["requestId"] = str(uuid.uuid4())
        return event


def chalice_config(app) -> Config:
    return Config.create(chalice_stage="local", app_name=app.app_name)


def _platform_error(status: int, code: str, message: str, headers: dict | None = None):
    response = error_response(status, code, message, headers=headers)
    return status, response.headers, response.body.encode("utf-8")


class GatewayApp:
    """WSGI in front of one Chalice app: what API Gateway does between a client and it,
    plus the fixed `pages` of this server (path -> Page), which need no token."""

    def __init__(self, app, pages: Mapping[str, Page] | None = None,
                 throttle: TokenBucket | None = None):
        self._gateway = ApiGatewayLocalGateway(app, chalice_config(app))
        self._pages = dict(pages or {})
        self._logger = app.logger
        self._throttle = throttle
        self._origin = _allowed_origin(app)

    def __call__(self, environ, start_response):
        method = environ["REQUEST_METHOD"]
        page = self._pages.get(environ.get("PATH_INFO", ""))
        if self._throttle is not None and not self._throttle.take():
            status, headers, body = self._throttled(environ, method)
        elif page is not None:
            status, headers, body = self._page(environ, method, page)
        elif method not in METHODS:
            status, headers, body = _platform_error(
                405, "METHOD_NOT_ALLOWED", f"Method {method} is not allowed",
                {"Allow": ", ".join(METHODS)})
        else:
            status, headers, body = self._forward(environ, "GET" if method == "HEAD" else method)
        start_response(f"{status} {HTTPStatus(status).phrase}",
                       [(name, value) for name, values in headers.items()
                        for value in (values if isinstance(values, list) else [values])]
                       + [("Content-Length", str(len(body)))])
        return [b"" if method == "HEAD" else body]

    def _throttled(self, environ, method: str):
        """API Gateway's 429: before any authorizer, function or page, and logged."""
        started = time.perf_counter()
        headers = {"Content-Type": "application/json",
                   "x-amzn-ErrorType": "TooManyRequestsException"}
        if self._origin:  # the template's DEFAULT_4XX response adds it on AWS
            headers["Access-Control-Allow-Origin"] = self._origin
        path = environ.get("PATH_INFO", "")
        log_request(self._logger, started, method=method, route=None, path=path, status=429)
        return 429, headers, TOO_MANY_BODY

    def _page(self, environ, method: str, page: Page):
        started = time.perf_counter()
        if method in PAGE_METHODS:
            answer = 200, {"Content-Type": page.content_type, **page.headers}, page.body
        else:
            answer = _platform_error(405, "METHOD_NOT_ALLOWED", f"Method {method} is not allowed",
                                     {"Allow": ", ".join(PAGE_METHODS)})
        path = environ["PATH_INFO"]
        log_request(self._logger, started, method=method, route=path, path=path,
                    status=answer[0])
        return answer

    def _forward(self, environ, method: str):
        headers = {name[5:].replace("_", "-").lower(): value
                   for name, value in environ.items() if name.startswith("HTTP_")}
        for name in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            if environ.get(name):
                headers[name.replace("_", "-").lower()] = environ[name]
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else None
        try:
            response = self._gateway.handle_request(method, environ["REQUEST_URI"], headers,
                                                    body)
        except LocalGatewayException as exc:
            return exc.CODE, {"Content-Type": "application/json", **exc.headers}, exc.body or b""
        headers = {**response["headers"], **response["multiValueHeaders"]}
        headers.setdefault("Content-Type", "application/json")
        body = response["body"] or b""
        if response.get("isBase64Encoded"):
            body = base64.b64decode(body)
        elif isinstance(body, str):
            body = body.encode("utf-8")
        return response["statusCode"], headers, body


class _PlatformErrorTask(ErrorTask):
    """waitress's own answers (a malformed request, a body over the limit) in the
    platform's error format instead of waitress's text."""

    CODES = {400: "BAD_REQUEST", 413: "PAYLOAD_TOO_LARGE", 431: "HEADERS_TOO_LARGE",
             501: "NOT_IMPLEMENTED"}

    def execute(self):
        error = self.request.error
        message = (f"The body is larger than {MAX_BODY_BYTES} bytes" if error.code == 413
                   else f"{error.reason}: {error.body}")
        status, headers, body = _platform_error(
            error.code, self.CODES.get(error.code, "BAD_REQUEST"), message)
        self.status = f"{status} {error.reason}"
        self.response_headers.extend(headers.items())
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class _PlatformChannel(HTTPChannel):
    error_task_class = _PlatformErrorTask


class _LateApp:
    """The WSGI app of a server bound before its app exists."""

    app = None

    def __call__(self, environ, start_response):
        return self.app(environ, start_response)


class AppServer:
    """An HTTP server on 127.0.0.1 for one Chalice app, answering as API Gateway would.

    The port is bound first and the app given later, because an app's settings may
    need to know its own URL (the local gateway is the stock check's target).
    """

    def __init__(self, port: int = 0, idle_timeout: int = DEFAULT_IDLE_TIMEOUT_SECONDS,
                 sock: socket.socket | None = None):
        """Listens on 127.0.0.1:`port`, or on `sock`, a listening socket handed over by
        the process that keeps the port open while the apps restart (infra/local/stack.py)."""
        self._app = _LateApp()
        where = {"sockets": [sock]} if sock is not None else {"host": "127.0.0.1", "port": port}
        self._server = create_server(
            self._app, **where, threads=THREADS, backlog=1024,
            connection_limit=1000, asyncore_use_poll=True,
            channel_timeout=idle_timeout, cleanup_interval=max(1, idle_timeout // 2),
            # waitress refuses a body of its limit or more, and counts a chunked body's
            # framing: the app checks the exact 1 MiB (common.service_app), this only bounds reads.
            max_request_body_size=MAX_BODY_BYTES + CHUNK_FRAMING_ALLOWANCE, ident="")
        self._server.channel_class = _PlatformChannel
        address = (self._server.effective_host, self._server.effective_port)
        self.background = BackgroundServer(address, self._server.run, self._shutdown,
                                           f"http-{address[1]}")
        self.url = self.background.url

    def serve(self, app, pages: Mapping[str, Page] | None = None,
              throttle: TokenBucket | None = None) -> BackgroundServer:
        self._app.app = GatewayApp(app, pages, throttle)
        return self.background.start()

    def close(self) -> None:
        """Release the port of a server that never started serving."""
        self._shutdown()

    def _drain(self) -> None:
        """Take no new connection (they wait in the listen backlog, for the next process
        when the apps restart on the same socket), and let the requests already received
        be answered, for DRAIN_SECONDS at most."""
        self._server.accepting = False
        # Wake the serving loop from a poll that still includes the listening socket.
        self._server.trigger.pull_trigger()
        time.sleep(0.05)
        deadline = time.monotonic() + DRAIN_SECONDS
        while time.monotonic() < deadline and any(
                getattr(channel, "requests", None) or getattr(channel, "total_outbufs_len", 0)
                for channel in list(self._server._map.values())):
            time.sleep(0.05)

    def _shutdown(self) -> None:
        if self.background.serving:
            self._drain()
        self._server.close()
        wasyncore.close_all(self._server._map)
        self._server.task_dispatcher.shutdown()
