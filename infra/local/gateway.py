"""Chalice's local server, corrected to behave like API Gateway where clients can tell.

- A bad token: API Gateway turns an authorizer failing with "Unauthorized" into
  401 {"message":"Unauthorized"}. Chalice's local gateway has no such path: the
  exception escapes and the connection drops without a response.
- Each event carries a request id in requestContext, as API Gateway's do, so logs have
  a correlation id locally too.
"""

import time
import uuid
from http.server import BaseHTTPRequestHandler

from chalice.config import Config
from chalice.local import (
    ChaliceRequestHandler,
    InvalidAuthorizerError,
    LocalGateway,
    LocalGatewayAuthorizer,
    LocalGatewayException,
    NotAuthorizedError,
    ThreadedHTTPServer,
)

from authorizer.policy import Unauthorized
from common.http import log_request
from infra.local.servers import BackgroundServer

UNAUTHORIZED_BODY = b'{"message":"Unauthorized"}'


def _allowed_origin(app) -> str | None:
    cors = app.api.cors
    return getattr(cors, "allow_origin", None)


class ApiGatewayAuthorizer(LocalGatewayAuthorizer):
    def __init__(self, app_object):
        super().__init__(app_object)
        self._app = app_object

    def authorize(self, raw_path, lambda_event, lambda_context):
        started = time.perf_counter()
        request_id = {"x-amzn-RequestId": lambda_context.aws_request_id}
        try:
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


class ApiGatewayLocalGateway(LocalGateway):
    def __init__(self, app_object, config):
        super().__init__(app_object, config)
        self._authorizer = ApiGatewayAuthorizer(app_object)

    def _generate_lambda_event(self, method, path, headers, body):
        event = super()._generate_lambda_event(method, path, headers, body)
        event["requestContext"]["requestId"] = str(uuid.uuid4())
        return event


class ApiGatewayRequestHandler(ChaliceRequestHandler):
    def __init__(self, request, client_address, server, app_object, config):
        # The base class handles the request inside __init__, so the gateway must be
        # in place before it runs.
        self.local_gateway = ApiGatewayLocalGateway(app_object, config)
        BaseHTTPRequestHandler.__init__(self, request, client_address, server)

    def log_message(self, *args):
        """The app logs each request once, as JSON; no second, plain-text access line."""


def chalice_config(app) -> Config:
    return Config.create(chalice_stage="local", app_name=app.app_name)


class AppServer:
    """An HTTP server on 127.0.0.1 for one Chalice app, answering as API Gateway would.

    The port is bound first and the app given later, because an app's settings may
    need to know its own URL (the local gateway is the stock check's target).
    """

    def __init__(self, port: int = 0):
        self._server = ThreadedHTTPServer(("127.0.0.1", port), self._handle)
        self._app = self._config = None
        self.background = BackgroundServer(self._server, f"http-{self._server.server_port}")
        self.url = self.background.url

    def _handle(self, request, client_address, server):
        ApiGatewayRequestHandler(request, client_address, server, self._app, self._config)

    def serve(self, app) -> BackgroundServer:
        self._app, self._config = app, chalice_config(app)
        return self.background.start()

    def close(self) -> None:
        """Release the port of a server that never started serving."""
        self._server.server_close()

