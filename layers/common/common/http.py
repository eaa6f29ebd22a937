"""The HTTP edge every service shares: the Chalice app, reading requests, answering them.

This is the one place where a domain error (common.errors) becomes a status code and
the platform's error body, and where each request is logged, once.
"""

import dataclasses
import functools
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import quote

import jmespath
from aws_lambda_powertools.logging import correlation_paths
from chalice import Blueprint, Chalice, ChaliceUnhandledError, CORSConfig, Response

from common import jsonio, keys
from common.bearer import bearer_token
from common.callers import SYSTEM, Caller
from common.errors import (
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
    NotFound,
    Unavailable,
    Unprocessable,
    invalid_field,
)
from common.fingerprints import fingerprint
from common.gateway_events import rest_event
from common.lambda_init import REHEARSAL
from common.logs import get_logger
from common.paging import MAX_LIMIT, Page, issue_token, parse_limit, read_token
from common.service_calls import OnBehalf
from common.settings import Settings
from common.tracing import tracer

MAX_BODY_BYTES = 1024 * 1024
JSON_CONTENT_TYPE = "application/json; charset=utf-8"
if TYPE_CHECKING:  # not at run time: functions without a POST never load the utility
    from common.idempotency import Once
C = TypeVar("C")  # what a create route's body becomes once checked

STATUS = {Invalid: 400, Forbidden: 403, NotFound: 404, Conflict: 409, Unprocessable: 422,
          Unavailable: 503}
_NUMERIC_ID = re.compile(r"-?[0-9]+")
# Chalice answers some requests itself ({"Code", "Message"}): same errors, our format.
_CHALICE_CODES = {"MethodNotAllowedError": "METHOD_NOT_ALLOWED",
                  "UnsupportedMediaType": "UNSUPPORTED_MEDIA_TYPE",
                  "BadRequest": "BAD_REQUEST", "InternalServerError": "INTERNAL_ERROR"}
# Bodies are parsed as JSON whatever Content-Type says (curl -d sends a form type), and
# a GET may carry any Content-Type: no route answers 415.
ANY_CONTENT_TYPE = ["*/*"]
# What a browser on the allowed origin may send, and read of an answer (the template's
# preflight, answered by API Gateway on AWS, allows the same).
CORS_ALLOW_HEADERS = ("Authorization", "Content-Type", "Idempotency-Key")
CORS_EXPOSE_HEADERS = ("Location", "Link", "X-Next-Token", "Idempotent-Replayed",
                       "Retry-After")


class PlatformApp(Chalice):
    """A Chalice app that logs each invocation as one line with its Lambda context.

    Chalice keeps the current request on the app: right on Lambda (one request per
    container at a time), wrong for a threaded local server, where concurrent requests
    would read each other's. Here it is per thread, as `chalice local` does it.
    """

    def __init__(self, name: str, logger):
        self._per_thread = threading.local()
        super().__init__(app_name=name, configure_logs=False)  # our logger writes the line
        self.logger = logger
        self._invoke = tracer.capture_lambda_handler(capture_response=False)(
            logger.inject_lambda_context(
                correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True,
            )(super().__call__))
        # Powertools parses this path on the first request; jmespath keeps it parsed.
        jmespath.compile(correlation_paths.API_GATEWAY_REST)

    @property
    def current_request(self):
        return getattr(self._per_thread, "request", None)

    @current_request.setter
    def current_request(self, value):
        self._per_thread.request = value

    @property
    def lambda_context(self):
        return getattr(self._per_thread, "context", None)

    @lambda_context.setter
    def lambda_context(self, value):
        self._per_thread.context = value

    def __call__(self, event, context):
        try:
            return self._invoke(event, context)
        finally:
            # An invocation's keys end with it: a line written between invocations on
            # this thread (the local gateway's 401) must not carry them.
            self.logger.thread_safe_clear_keys()

    def rehearse(self, method: str, route: str, body: str | None = None,
                 query: dict[str, str] | None = None, **path_parameters: str) -> int:
        """Answer, during init, a request that changes nothing (a read, a refused body),
        so that the first client's request finds its path warm (see lambda_init.warm_up).
        It goes through Chalice and the platform's middleware, and is logged with
        sub "init-rehearsal"; not through Powertools, for which the first client
        request stays the cold start. A 5xx answer raises: the rehearsal failed."""
        event = rest_event(method, route, path_parameters=path_parameters, query=query,
                           body=body, request_id=REHEARSAL,
                           authorizer={**SYSTEM.context(), "sub": REHEARSAL})
        status = Chalice.__call__(self, event, None)["statusCode"]
        if status >= 500:
            raise RuntimeError(f"{method} {event['path']} answered {status}")
        return status


class _Failed(ChaliceUnhandledError):
    """A view's exception, carried past Chalice's own handler to the platform's."""


def create_app(name: str, settings: Settings, *blueprints: Blueprint,
               cors: bool = True) -> PlatformApp:
    """A service's app: the platform's error format, body limit, CORS and request log."""
    app = PlatformApp(name, get_logger(name))
    origin = settings.cors_allow_origin
    if cors:
        app.api.cors = CORSConfig(allow_origin=origin,
                                  allow_headers=list(CORS_ALLOW_HEADERS),
                                  expose_headers=list(CORS_EXPOSE_HEADERS), max_age=600)

    @app.middleware("http")
    def platform_http(request, get_response):
        started = time.perf_counter()
        failure = None
        if request.raw_body and len(request.raw_body) > MAX_BODY_BYTES:
            response = error_response(413, "PAYLOAD_TOO_LARGE",
                                      f"The body is larger than {MAX_BODY_BYTES} bytes")
        else:
            try:
                response = _in_platform_format(get_response(request))
            except Exception as exc:  # a view's (carried as _Failed), or Chalice's own
                cause = exc.__cause__ if isinstance(exc, _Failed) else exc
                if isinstance(cause, DomainError):
                    response = domain_error_response(cause)
                else:
                    failure = cause
                    response = error_response(500, "INTERNAL_ERROR",
                                              "An internal error occurred")
        if cors:
            # Chalice adds CORS headers only to responses its view returned normally;
            # every error gets them too (a 503's Retry-After is for the browser as well).
            response.headers.setdefault("Access-Control-Allow-Origin", origin)
            response.headers.setdefault("Access-Control-Expose-Headers",
                                        ",".join(CORS_EXPOSE_HEADERS))
        authorizer = request.context.get("authorizer") or {}
        log_request(app.logger, started, failure, method=request.method,
                    route=request.context.get("resourcePath"),
                    path=request.context.get("path", request.path),
                    status=response.status_code,
                    sub=authorizer.get("sub") or authorizer.get("principalId"))
        return response

    for blueprint in blueprints:
        app.register_blueprint(blueprint)
    for methods in app.routes.values():
        for route in methods.values():
            route.content_types = ANY_CONTENT_TYPE
            route.view_function = _carried_to_middleware(route.view_function)
    return app


def _carried_to_middleware(view):
    """Chalice answers a view's exception itself, in its own format, before middleware
    sees it; carried as _Failed it reaches platform_http, which answers in ours."""

    @functools.wraps(view)
    def guarded(**kwargs):
        try:
            return view(**kwargs)
        except Exception as exc:
            raise _Failed(str(exc)) from exc

    return guarded


def log_request(logger, started: float, failure: BaseException | None = None, **fields) -> None:
    """The one line of a request: method, route, path, status, sub and whatever else
    the caller knows, its duration, and the traceback of an unexpected failure."""
    fields["duration_ms"] = round((time.perf_counter() - started) * 1000, 2)
    if failure is None:
        logger.info("request", extra=fields)
    else:
        logger.error("request", extra=fields,
                     exc_info=(type(failure), failure, failure.__traceback__))


def log_with_request(logger, **keys) -> None:
    """Add keys to this request's one log line (and to any other line it writes)."""
    logger.append_keys(**keys)


# -- answers ----------------------------------------------------------------------------

def error_response(status: int, code: str, message: str, *, details: list | None = None,
                   headers: dict | None = None) -> Response:
    """The platform's error body: {"error": CODE, "message": text[, "details": [...]]}."""
    body = {"error": code, "message": message}
    if details is not None:
        body["details"] = details
    return json_response(body, status, headers)


def domain_error_response(err: DomainError) -> Response:
    status = next(code for kind, code in STATUS.items() if isinstance(err, kind))
    headers = ({"Retry-After": str(err.retry_after_seconds)}
               if err.retry_after_seconds is not None else None)
    return error_response(status, err.code, err.message, details=err.details, headers=headers)


def _in_platform_format(response: Response) -> Response:
    body = response.body
    if response.status_code >= 400 and isinstance(body, dict) and "Code" in body:
        code = _CHALICE_CODES.get(body["Code"], "ERROR")
        return error_response(response.status_code, code, body.get("Message") or code,
                              headers=response.headers)
    return response


def api_json(value):
    """A domain value as the API shows it: dataclasses become objects whose keys are the
    camelCase of their field names (precio_unitario -> precioUnitario), id first; a field
    marked `internal` is the platform's own and not shown."""
    if isinstance(value, list | tuple):
        return [api_json(item) for item in value]
    if dataclasses.is_dataclass(value):
        fields = sorted((f for f in dataclasses.fields(value) if not f.metadata.get("internal")),
                        key=lambda f: f.name != "id")
        return {_camel(f.name): api_json(getattr(value, f.name)) for f in fields}
    return value


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def json_response(body, status: int = 200, headers: dict | None = None) -> Response:
    # Responses carry UTF-8 as is ("Ruta terrestre — Lima"); every text field was checked
    # to be encodable on the way in.
    return Response(body=jsonio.dumps(api_json(body), ascii_only=False), status_code=status,
                    headers={"Content-Type": JSON_CONTENT_TYPE, **(headers or {})})


def ok(body) -> Response:
    return json_response(body, 200)


def created(body) -> Response:
    return json_response(body, 201)


def no_content() -> Response:
    return Response(body="", status_code=204)


def text(body: str) -> Response:
    return Response(body=body, status_code=200,
                    headers={"Content-Type": "text/plain; charset=utf-8"})


# -- lists --------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Lists:
    """How every list is answered (docs/api.md#lists): in pages of ascending id, a signed
    token for the next one, and a body never over `max_bytes`."""

    token_keys: keys.KeyRing
    max_bytes: int

    @classmethod
    def from_settings(cls, settings: Settings) -> "Lists":
        return cls(keys.page_token_keys(settings), settings.max_response_bytes)

    def answer(self, request, fetch: Callable[[int, int], Page],
               filters: Mapping[str, str | None] | None = None) -> Response:
        """Answer with the page that `fetch(after, limit)` reads; the filters (query
        parameters) bind the token, so it cannot be used with other ones."""
        filters = filters or {}
        query = request.query_params or {}
        limit = parse_limit(query.get("limit"))
        list_name = request.context.get("resourcePath", request.path)
        after = read_token(self.token_keys, query.get("nextToken"), list_name, filters)
        body, resume_after = self._body(fetch, after, limit)
        headers = {}
        if resume_after is not None:
            token = issue_token(self.token_keys, list_name, filters, resume_after)
            headers = {"X-Next-Token": token,
                       "Link": f'<{_next_page_link(request, token)}>; rel="next"'}
        return Response(body=body, status_code=200,
                        headers={"Content-Type": JSON_CONTENT_TYPE, **headers})

    def _body(self, fetch, after: int, limit: int | None) -> tuple[str, int | None]:
        """The JSON array of the page, cut where the next item would pass `max_bytes`
        (never before its first item), and where the list goes on after it.

        With a limit, one read of at most `limit` items; without, reads of MAX_LIMIT
        until the list ends or the body is full."""
        parts, size = [], 2  # the brackets
        while True:
            page = fetch(after, limit or MAX_LIMIT)
            for item in page.items:
                encoded = jsonio.dumps(api_json(item), ascii_only=False)
                cost = len(encoded.encode("utf-8")) + (1 if parts else 0)
                if parts and size + cost > self.max_bytes:
                    return f"[{','.join(parts)}]", after
                parts.append(encoded)
                size += cost
                after = item.id
            if page.resume_after is None or limit is not None:
                return f"[{','.join(parts)}]", page.resume_after
            after = page.resume_after


def _next_page_link(request, token: str) -> str:
    """The same path (with any stage prefix) and query, with this token: a relative
    reference (RFC 8288)."""
    path = request.context.get("path", request.path)
    query = request.query_params or {}
    pairs = [(name, value) for name in query if name != "nextToken"
             for value in query.getlist(name)]
    pairs.append(("nextToken", token))
    return path + "?" + "&".join(f"{quote(name, safe='')}={quote(value, safe='')}"
                                 for name, value in pairs)


# -- creating once per key --------------------------------------------------------------

_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")


class CreatedOnce:
    """A POST that creates, done once per `Idempotency-Key`
    (docs/api.md#retries-without-duplicates-idempotency-key).

    A key is the caller's (the token's sub) on this route; the first request with it is
    processed, and its 201 remembered; a repeat with an equal JSON body gets that 201
    and body again with `Idempotent-Replayed: true`, and changes nothing. The body is
    stored as the JSON text that was sent, so money replays with its exact digits.
    """

    def __init__(self, once: "Once"):
        self._once = once

    def answer(self, request, parse: Callable[[dict], C], create: Callable[[C], object]
               ) -> Response:
        """`parse(body)` checks the body and turns it into what `create` takes (400 or
        403 for one it refuses), before any key is claimed: a body gets the same answer
        with a key as without. `create(command)` makes the thing and returns it, as
        `created` answers it."""
        key = request.headers.get("idempotency-key")
        if key is not None and not _IDEMPOTENCY_KEY.fullmatch(key):
            raise invalid_field("Idempotency-Key", "must be 1 to 255 visible ASCII characters")
        body = json_object(request)
        command = parse(body)
        if key is None:
            return created(create(command))
        outcome = self._once.run(
            {"caller": caller_of(request).sub, "key": key}, fingerprint(body),
            lambda: {"body": created(create(command)).body}, request.lambda_context)
        headers = {"Content-Type": JSON_CONTENT_TYPE}
        if outcome.replayed:
            headers["Idempotent-Replayed"] = "true"
        return Response(body=outcome.result["body"], status_code=201, headers=headers)


# -- reading requests -------------------------------------------------------------------

def json_object(request) -> dict:
    """The request body as a JSON object, or a 400 that says what is wrong with it."""
    try:
        body = jsonio.loads(request.raw_body)
    except jsonio.InvalidJson as exc:
        raise Invalid("INVALID_JSON", str(exc).capitalize()) from None
    if not isinstance(body, dict):
        raise Invalid("INVALID_JSON", "The body must be a JSON object")
    return body


def caller_of(request) -> Caller:
    """Who sent the request, as the gateway's authorizer told the function."""
    return Caller.from_context(request.context.get("authorizer"))


def path_id(raw: str) -> int:
    """A numeric path id. Non-numeric text is the client's mistake (400); a number no
    entity can have (0, negative, 45 digits) is simply not found by the repository."""
    if not _NUMERIC_ID.fullmatch(raw):
        raise Invalid("INVALID_ID", f"Id must be a number, got {raw!r}")
    # Python refuses int() past 4300 digits; no id comes near, so such a one is unknown.
    return int(raw) if len(raw) <= 4000 else -1


def query_param(request, name: str) -> str | None:
    return (request.query_params or {}).get(name)


def gateway_base_url(request) -> str:
    """The base URL of the gateway a request came in on, stage prefix included.

    It is read from what API Gateway itself puts in the event, never from headers the
    client chose (a forged Host would send a call carrying the caller's token to a
    server of the client's choosing). Outside API Gateway the local stack configures
    the URL instead; the Host header is only the last resort of a bare `chalice local`.
    """
    event = request.to_original_event()
    context = event.get("requestContext") or {}
    domain = context.get("domainName")
    if not domain:
        return f"http://{request.headers.get('host', '127.0.0.1')}"
    full_path, own_path = context.get("path", ""), event.get("path")
    prefix = full_path[: -len(own_path)] if own_path and full_path.endswith(own_path) else ""
    return f"https://{domain}{prefix}"


def on_behalf_of(request) -> OnBehalf:
    """What a call to another service needs to make it for this request's caller."""
    return OnBehalf(caller=caller_of(request),
                    token=bearer_token(request.headers.get("authorization")),
                    gateway_url=gateway_base_url(request),
                    request_id=request.context.get("requestId"))
