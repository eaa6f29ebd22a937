"""A service's Chalice app: the platform's request log, error format, body limit and CORS
around its routes. Every error a route raises, and every answer Chalice gives itself, come
out here in the platform's format (common.http.responses), and each request is logged, once.
"""

import base64
import functools
import time
from collections.abc import Callable
from typing import Any

import jmespath
from aws_lambda_powertools.logging import correlation_paths
from chalice import Blueprint, Chalice, ChaliceUnhandledError, CORSConfig, Response
from chalice.app import Request

from common.http.gateway_events import rest_event
from common.http.responses import domain_error_response, error_response
from common.http.service_calls import OnBehalf, answered, routed_event
from common.identity.callers import SYSTEM
from common.platform import aws
from common.platform.errors import DomainError, Unavailable
from common.platform.lambda_init import REHEARSAL
from common.platform.logs import Logger, get_logger
from common.platform.settings import Http
from common.platform.tracing import tracer

MAX_BODY_BYTES = 1024 * 1024
# Chalice answers some requests itself ({"Code", "Message"}): same errors, our format.
_CHALICE_CODES = {
    "MethodNotAllowedError": "METHOD_NOT_ALLOWED",
    "UnsupportedMediaType": "UNSUPPORTED_MEDIA_TYPE",
    "BadRequest": "BAD_REQUEST",
    "InternalServerError": "INTERNAL_ERROR",
}
# Bodies are parsed as JSON whatever Content-Type says (curl -d sends a form type), and
# a GET may carry any Content-Type: no route answers 415.
ANY_CONTENT_TYPE = ["*/*"]
# What a browser on the allowed origin may send, and read of an answer (the template's
# preflight, answered by API Gateway on AWS, allows the same).
CORS_ALLOW_HEADERS = ("Authorization", "Content-Type", "Idempotency-Key")
CORS_EXPOSE_HEADERS = ("Location", "Link", "X-Next-Token", "Idempotent-Replayed", "Retry-After")
# The routes only another service reaches (docs/architecture.md): API Gateway serves none
# of them (infra/template.yaml), so only a direct invoke of the function, which IAM allows
# the calling function alone, reaches them; and each checks its caller is a service
# (common.identity.callers.SERVICE), which no token can make it.
INTERNAL = "/internal/"


class PlatformApp(Chalice):
    """A Chalice app that logs each invocation as one line with its Lambda context, and
    traces it."""

    def __init__(self, name: str, logger: Logger):
        super().__init__(app_name=name, configure_logs=False)  # our logger writes the line
        self.logger = logger
        self._invoke = tracer.capture_lambda_handler(capture_response=False)(
            logger.inject_lambda_context(
                correlation_id_path=correlation_paths.API_GATEWAY_REST,
                clear_state=True,
            )(super().__call__)
        )
        # Powertools parses this path on the first request; jmespath keeps it parsed.
        jmespath.compile(correlation_paths.API_GATEWAY_REST)

    def __call__(self, event: dict, context: Any) -> Any:
        return binary(self._invoke(event, context))

    def rehearse(
        self,
        method: str,
        route: str,
        body: str | None = None,
        query: dict[str, str] | None = None,
        **path_parameters: str,
    ) -> int:
        """Answer, during init, a request that changes nothing (a read, a refused body),
        so that the first client's request finds its path warm (see lambda_init.warm_up).
        It goes through Chalice and the platform's middleware, and is logged with
        sub "init-rehearsal"; not through Powertools, for which the first client
        request stays the cold start. A 5xx answer raises: the rehearsal failed."""
        event = rest_event(
            method,
            route,
            path_parameters=path_parameters,
            query=query,
            body=body,
            request_id=REHEARSAL,
            authorizer={**SYSTEM.context(), "sub": REHEARSAL},
        )
        # Its own keys, as Powertools gives every invocation (clear_state): none left by
        # an earlier request, none left for the next.
        self.logger.clear_state()
        try:
            status = Chalice.__call__(self, event, None)["statusCode"]
        finally:
            self.logger.clear_state()
        if status >= 500:
            raise RuntimeError(f"{method} {event['path']} answered {status}")
        return status


def binary(answer: Any) -> Any:
    """An answer whose body is bytes (a compressed document: common.http.responses), as API
    Gateway takes it from a function: base64, saying so (Chalice leaves bytes as they
    are for a type it does not call binary, and a Lambda answer is JSON)."""
    if isinstance(answer, dict) and isinstance(answer.get("body"), bytes):
        answer["body"] = base64.b64encode(answer["body"]).decode("ascii")
        answer["isBase64Encoded"] = True
    return answer


def gateway_routes(app: Chalice) -> set[tuple[str, str]]:
    """The (path, METHOD) of the app's routes API Gateway serves: all but the internal."""
    return {
        (path, method)
        for path, methods in app.routes.items()
        for method in methods
        if not path.startswith(INTERNAL)
    }


class ServiceBlueprint(Blueprint):
    """A function's routes, and that function's name (its wiring sets `function`):
    create_app runs each of its views as that function (common.platform.aws.acting_as).
    `cache_control`, when set, is the Cache-Control of every answer of its routes, errors
    included (the sign-in routes' hold tokens: "no-store")."""

    function: str
    cache_control: str | None = None


class _Failed(ChaliceUnhandledError):
    """A view's exception, carried past Chalice's own handler to the platform's."""


def create_app(
    name: str, http: Http, *blueprints: ServiceBlueprint, cors: bool = True
) -> PlatformApp:
    """A service's app: the platform's error format, body limit, CORS and request log."""
    app = PlatformApp(name, get_logger(name))
    cache_controls: dict[str, str] = {}  # route -> its blueprint's cache_control
    origin = http.cors_allow_origin if cors else None
    if origin is not None:
        app.api.cors = CORSConfig(
            allow_origin=origin,
            allow_headers=list(CORS_ALLOW_HEADERS),
            expose_headers=list(CORS_EXPOSE_HEADERS),
            max_age=600,
        )

    @app.middleware("http")
    def platform_http(request: Request, get_response: Callable[[Request], Response]) -> Response:
        started = time.perf_counter()
        response, failure = _answer(request, get_response)
        cache_control = cache_controls.get(request.context.get("resourcePath", ""))
        if cache_control is not None:
            response.headers["Cache-Control"] = cache_control
        if origin is not None:
            # Chalice adds CORS headers only to responses its view returned normally;
            # every error gets them too (a 503's Retry-After is for the browser as well).
            response.headers.setdefault("Access-Control-Allow-Origin", origin)
            response.headers.setdefault(
                "Access-Control-Expose-Headers", ",".join(CORS_EXPOSE_HEADERS)
            )
        authorizer = request.context.get("authorizer") or {}
        log_request(
            app.logger,
            started,
            failure,
            method=request.method,
            route=request.context.get("resourcePath"),
            path=request.context.get("path", request.path),
            status=response.status_code,
            sub=authorizer.get("sub") or authorizer.get("principalId"),
        )
        return response

    for blueprint in blueprints:
        for path in _register(app, blueprint):
            if blueprint.cache_control is not None:
                cache_controls[path] = blueprint.cache_control
    return app


# A table over its capacity (a counter every request of a route writes, say): load, 503.
THROTTLED = Unavailable(
    "THROTTLED", "The platform is busy at the moment: try again", retry_after_seconds=1
)


def _answer(
    request: Request, get_response: Callable[[Request], Response]
) -> tuple[Response, BaseException | None]:
    """The request's answer in the platform's format, and the unexpected failure behind a
    500 (for the log line), if any."""
    if request.raw_body and len(request.raw_body) > MAX_BODY_BYTES:
        message = f"The body is larger than {MAX_BODY_BYTES} bytes"
        return error_response(413, "PAYLOAD_TOO_LARGE", message), None
    try:
        return _in_platform_format(get_response(request)), None
    except Exception as exc:  # a view's (carried as _Failed), or Chalice's own
        cause = exc.__cause__ if isinstance(exc, _Failed) else exc
        if isinstance(cause, DomainError):
            return domain_error_response(cause), None
        if aws.throttled(cause):
            return domain_error_response(THROTTLED), None
        return error_response(500, "INTERNAL_ERROR", "An internal error occurred"), cause


def _register(app: PlatformApp, blueprint: ServiceBlueprint) -> set[str]:
    """The blueprint's routes on the app, each taking any content type and run as the
    blueprint's function (its wiring says whose they are); returns their paths."""
    before = {(path, method) for path, methods in app.routes.items() for method in methods}
    app.register_blueprint(blueprint)
    added = set()
    for path, methods in app.routes.items():
        for method, route in methods.items():
            if (path, method) not in before:
                route.content_types = ANY_CONTENT_TYPE
                route.view_function = _as_platform_view(route.view_function, blueprint.function)
                added.add(path)
    return added


def _as_platform_view(view: Callable[..., Any], function: str) -> Callable[..., Any]:
    """The view run as its function; and its exception, which Chalice would answer itself
    in its own format before middleware sees it, carried as _Failed to platform_http,
    which answers in ours."""

    @functools.wraps(view)
    def guarded(**kwargs: Any) -> Any:
        try:
            with aws.acting_as(function):
                return view(**kwargs)
        except Exception as exc:
            raise _Failed(str(exc)) from exc

    return guarded


def log_request(
    logger: Logger, started: float, failure: BaseException | None = None, **fields: Any
) -> None:
    """The one line of a request: method, route, path, status, sub and whatever else
    the caller knows, its duration, and the traceback of an unexpected failure."""
    fields["duration_ms"] = round((time.perf_counter() - started) * 1000, 2)
    if failure is None:
        logger.info("request", extra=fields)
    else:
        logger.error(
            "request", extra=fields, exc_info=(type(failure), failure, failure.__traceback__)
        )


def log_with_request(logger: Logger, **keys: Any) -> None:
    """Add keys to this request's one log line (and to any other line it writes)."""
    logger.append_keys(**keys)


def _in_platform_format(response: Response) -> Response:
    body = response.body
    if response.status_code >= 400 and isinstance(body, dict) and "Code" in body:
        code = _CHALICE_CODES.get(body["Code"], "ERROR")
        return error_response(
            response.status_code, code, body.get("Message") or code, headers=response.headers
        )
    return response


class InProcess:
    """The other service's routes served by this very app (the local gateway, which holds
    every service's routes, and `chalice local`): the same event a ByInvoke sends, handed
    to the app's handler in this process. `app()` gives the app (it is built after the
    routes that call it)."""

    def __init__(self, app: Callable[[], Any]):
        self._app = app

    def call(
        self,
        method: str,
        route: str,
        path_parameters: dict[str, str],
        on_behalf: OnBehalf,
        *,
        query: dict[str, str] | None = None,
        body: dict | None = None,
    ) -> tuple[int, bytes]:
        app = self._app()
        event = routed_event(method, route, path_parameters, on_behalf, query, body)
        # Chalice keeps the request being answered on the app: the outer one is put back.
        outer = app.current_request, app.lambda_context
        try:
            response = Chalice.__call__(app, event, None)
        finally:
            app.current_request, app.lambda_context = outer
        return answered(response)
