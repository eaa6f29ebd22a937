"""Chalice's local server, corrected to answer a bad token the way API Gateway does.

API Gateway turns an authorizer failing with "Unauthorized" into
401 {"message":"Unauthorized"}. Chalice's local gateway has no such path: the exception
escapes and the connection drops without a response. These subclasses add exactly
that mapping and nothing else, for the local stack and for route tests alike.
"""

from http.server import BaseHTTPRequestHandler

from chalice.local import (
    ChaliceRequestHandler,
    InvalidAuthorizerError,
    LocalChalice,
    LocalGateway,
    LocalGatewayAuthorizer,
    LocalGatewayException,
    NotAuthorizedError,
)
from chalice.test import TestHTTPClient

from common import config

UNAUTHORIZED_BODY = b'{"message":"Unauthorized"}'


def thread_safe(app):
    """Give the app a per-thread `current_request`.

    Chalice keeps the current request on the app object: fine on Lambda (one request per
    container), wrong for a threaded server, where concurrent requests would read each
    other's bodies. `chalice local` swaps in LocalChalice for this; so do we.
    """
    if not isinstance(app, LocalChalice):
        app.__class__ = LocalChalice
    return app


class ApiGatewayAuthorizer(LocalGatewayAuthorizer):
    def authorize(self, raw_path, lambda_event, lambda_context):
        request_id = {"x-amzn-RequestId": lambda_context.aws_request_id}
        try:
            return super().authorize(raw_path, lambda_event, lambda_context)
        except NotAuthorizedError:  # Chalice's own, for a missing header
            raise self._unauthorized(request_id) from None
        except LocalGatewayException:
            raise
        except Exception as exc:
            if str(exc) == "Unauthorized":
                raise self._unauthorized(request_id) from None
            # Any other authorizer failure is a 500 on API Gateway, never a pass.
            raise InvalidAuthorizerError(
                {**request_id, "x-amzn-ErrorType": "AuthorizerConfigurationException"},
                b'{"message":null}') from exc

    @staticmethod
    def _unauthorized(request_id: dict) -> NotAuthorizedError:
        return NotAuthorizedError(
            {**request_id, "x-amzn-ErrorType": "UnauthorizedException",
             # The template's GatewayResponses add it on AWS.
             "Access-Control-Allow-Origin": config.cors_allow_origin()},
            UNAUTHORIZED_BODY)


class ApiGatewayLocalGateway(LocalGateway):
    def __init__(self, app_object, config):
        super().__init__(app_object, config)
        self._authorizer = ApiGatewayAuthorizer(app_object)


class ApiGatewayRequestHandler(ChaliceRequestHandler):
    def __init__(self, request, client_address, server, app_object, config):
        # The base class handles the request inside __init__, so the gateway must be
        # in place before it runs.
        self.local_gateway = ApiGatewayLocalGateway(app_object, config)
        BaseHTTPRequestHandler.__init__(self, request, client_address, server)


class ApiGatewayTestClient(TestHTTPClient):
    """chalice.test's HTTP client with the same 401 behaviour, for route tests."""

    def __init__(self, app, config):
        super().__init__(thread_safe(app), config)
        self._local_gateway = ApiGatewayLocalGateway(app, self._config)
