"""API Gateway on a laptop: one REST API of the template (its routes, its authorizer, its
CORS) in front of the functions the local Lambda service runs (infra/local/lambdas.py).

For each request, in API Gateway's order:
1. the stage's throttle (a token bucket): past it, 429 before anything runs;
2. the fixed pages of the local server (the API's description, the console), no token;
3. the route, from the template's API events: none for the path is 403 "Missing
   Authentication Token"; a method the path does not have is 405 (locally; API Gateway
   answers 403 there too); OPTIONS is the CORS preflight, answered here;
4. the TOKEN authorizer, as API Gateway runs it (not for a route the template marks
   `Authorizer: NONE`, the gateway's root): a header that fails the identity
   validation expression is 401 at once; the authorizer function failing with
   "Unauthorized" is 401, failing otherwise 500, a Deny 403; an Allow passes its context;
5. the route's function, invoked with the proxy event; its answer is the response. A
   function that fails, crashes or times out is 502 "Internal server error"; one that
   cannot be reached in time, 504. For an API whose functions use AWS's services (the
   emulator, infra/local/aws_watch.py), a request waits while the emulator restarts, up
   to its WAIT_SECONDS, and is then answered 503 `AWS_EMULATOR_UNAVAILABLE`; so is one
   whose function failed (500) because the emulator died under it. Locally only: the
   emulator is the laptop's stand-in for AWS, not part of the platform.
Every answer API Gateway makes itself carries the CORS origin and `Cache-Control:
no-store` (the template's gateway responses) and is logged as one line here; the
functions log their own.
"""

import base64
import json
import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote

from common.http.gateway_events import rest_event
from common.http.service_app import log_request
from common.platform.logs import get_logger
from infra import template
from infra.api_docs import Page
from infra.local.aws_watch import WAIT_SECONDS, WatchedAws
from infra.local.http_server import platform_error, request_headers, respond
from infra.local.lambdas import LambdaService
from infra.local.throttle import TOO_MANY_BODY, TokenBucket

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD")
PAGE_METHODS = ("GET", "HEAD")
INTEGRATION_TIMEOUT_SECONDS = 29  # API Gateway's, for the function's answer
# What the template's GatewayResponses add to every answer API Gateway makes itself,
# besides the CORS origin.
OWN_ANSWERS_HEADERS = {"Cache-Control": "no-store"}
STAGE = "local"


@dataclass(frozen=True)
class Route:
    path: str  # the template's, e.g. /api/inventario/{id}
    pattern: re.Pattern
    names: tuple[str, ...]  # its path parameters
    functions: Mapping[str, str]  # METHOD -> function
    public: frozenset[str] = frozenset()  # the METHODs no authorizer guards

    @property
    def literal(self) -> bool:
        return not self.names


@dataclass(frozen=True)
class Authorizer:
    function: str
    header: str
    validation: re.Pattern | None


@dataclass(frozen=True)
class Api:
    name: str  # its logical id
    routes: tuple[Route, ...]
    authorizer: Authorizer | None
    cors: Mapping[str, str]  # the preflight's headers; empty without CORS


def _route(path: str, functions: dict[str, str], public: frozenset[str]) -> Route:
    names = tuple(re.findall(r"\{(\w+)\}", path))
    pattern = re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(path)) + "$")
    return Route(path, pattern, names, functions, public)


def _function_named(arn: dict) -> str:
    """The function an ARN of the template names: its own (!GetAtt F.Arn), or its alias's
    (!Ref F.Alias), which locally is the function itself."""
    if "Fn::GetAtt" in arn:
        return arn["Fn::GetAtt"][0]
    return arn["Ref"].removesuffix(".Alias")


def api(name: str, cors_origin: str) -> Api:
    """The API `name` of the template, as this gateway serves it."""
    by_path: dict[str, dict[str, str]] = {}
    for (path, method), function in template.api_routes(name).items():
        by_path.setdefault(path, {})[method] = function
    # API Gateway prefers a literal path to a templated one (alertas before {id}).
    public = template.public_routes(name)
    routes = sorted(
        (
            _route(path, functions, frozenset(method for route, method in public if route == path))
            for path, functions in by_path.items()
        ),
        key=lambda route: not route.literal,
    )
    props = template.load()["Resources"][name]["Properties"]
    auth = props.get("Auth", {})
    authorizer = None
    if auth.get("DefaultAuthorizer"):
        declared = auth["Authorizers"][auth["DefaultAuthorizer"]]
        identity = declared.get("Identity", {})
        expression = identity.get("ValidationExpression")
        authorizer = Authorizer(
            _function_named(declared["FunctionArn"]),
            identity.get("Header", "Authorization").lower(),
            re.compile(expression) if expression else None,
        )
    cors = {}
    if "Cors" in props:
        declared = props["Cors"]
        cors = {
            "Access-Control-Allow-Origin": cors_origin,
            "Access-Control-Allow-Headers": declared["AllowHeaders"].strip("'"),
            "Access-Control-Allow-Methods": declared["AllowMethods"].strip("'"),
            "Access-Control-Max-Age": declared["MaxAge"].strip("'"),
        }
    return Api(name, tuple(routes), authorizer, cors)


def _not_allowed(method: str, allowed) -> tuple:
    """405, and the methods the path does have (Allow)."""
    return platform_error(
        405,
        "METHOD_NOT_ALLOWED",
        f"Method {method} is not allowed",
        {"Allow": ", ".join(allowed)},
    )


class _Answer(Exception):
    """An answer API Gateway makes itself."""

    def __init__(
        self,
        status: int,
        body: dict | bytes,
        error_type: str,
        headers: dict | None = None,
        reason: str | None = None,
    ):
        super().__init__(reason or error_type)
        self.status, self.error_type, self.reason = status, error_type, reason
        self.body = (
            body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode()
        )
        self.headers = headers or {}


def _aws_unavailable(why: str) -> _Answer:
    """503 in the platform's error format, naming the local cause (a developer reads it)."""
    return _Answer(
        503,
        {
            "error": "AWS_EMULATOR_UNAVAILABLE",
            "message": f"The local AWS emulator cannot serve this request: {why} (see the "
            "stack's log).",
        },
        "ServiceUnavailableException",
        {"Retry-After": "2"},
        reason=why,
    )


class ApiGateway:
    """The WSGI app of one API."""

    def __init__(
        self,
        api: Api,
        lambdas: LambdaService,
        region: str,
        pages: Mapping[str, Page] | None = None,
        throttle: TokenBucket | None = None,
        aws: WatchedAws | None = None,
    ):
        self.api, self._lambdas, self._region = api, lambdas, region
        self._aws = aws
        self._pages = dict(pages or {})
        self._throttle = throttle
        # The routes the template throttles on their own (the sign-in routes), as API
        # Gateway does after the stage's limit.
        self._route_throttles = {
            route: TokenBucket(rate, burst)
            for route, (rate, burst) in template.method_throttles(api.name).items()
        }
        self._logger = get_logger(f"local-{api.name}")

    def __call__(self, environ, start_response):
        started = time.perf_counter()
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        request_id = str(uuid.uuid4())
        try:
            status, headers, body = self._answer(environ, method, path, request_id)
            logged = None
        except _Answer as answer:
            status, body = answer.status, answer.body
            headers = {
                "Content-Type": "application/json",
                "x-amzn-RequestId": request_id,
                "x-amzn-ErrorType": answer.error_type,
                **self._origin(),
                **OWN_ANSWERS_HEADERS,
                **answer.headers,
            }
            logged = answer.reason or answer.error_type
        if logged is not None or path in self._pages or method == "OPTIONS":
            extra: dict[str, Any] = {"reason": logged} if logged else {}
            log_request(
                self._logger,
                started,
                method=method,
                route=None,
                path=path,
                status=status,
                correlation_id=request_id,
                **extra,
            )
        return respond(start_response, method, status, headers, body)

    def _origin(self) -> dict:
        origin = self.api.cors.get("Access-Control-Allow-Origin")
        return {"Access-Control-Allow-Origin": origin} if origin else {}

    def _answer(self, environ, method: str, path: str, request_id: str):
        if self._throttle is not None and not self._throttle.take():
            raise _Answer(429, TOO_MANY_BODY, "TooManyRequestsException")
        page = self._pages.get(path)
        if page is not None:
            if method not in PAGE_METHODS:
                return _not_allowed(method, PAGE_METHODS)
            return 200, {"Content-Type": page.content_type, **page.headers}, page.body
        if method not in METHODS:
            return _not_allowed(method, METHODS)
        route, parameters = self._match(environ.get("REQUEST_URI") or path)
        if method == "OPTIONS" and self.api.cors:
            return 200, {"Content-Type": "application/json", **self.api.cors}, b""
        routed = "GET" if method == "HEAD" else method
        function = route.functions.get(routed)
        if function is None:
            return _not_allowed(method, sorted(route.functions))
        bucket = self._route_throttles.get((route.path, routed))
        if bucket is not None and not bucket.take():
            raise _Answer(429, TOO_MANY_BODY, "TooManyRequestsException")
        headers = request_headers(environ)
        guarded = self.api.authorizer is not None and routed not in route.public
        context = self._authorize(headers, routed, path) if guarded else {}
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else None
        query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        event = rest_event(
            routed,
            route.path,
            request_id=request_id,
            path=path,
            path_parameters=parameters or None,
            query=query or None,
            headers=headers,
            body=body,
            authorizer=context,
            request_context={
                "stage": STAGE,
                "identity": {"sourceIp": environ.get("REMOTE_ADDR", "127.0.0.1")},
                # Its own address, as API Gateway names its domain: never the Host header.
                "domainName": f"127.0.0.1:{environ.get('SERVER_PORT', '80')}",
            },
        )
        return self._invoke(function, event)

    def _match(self, raw_path: str) -> tuple[Route, dict[str, str]]:
        path = raw_path.split("?", 1)[0]
        for route in self.api.routes:
            matched = route.pattern.match(path)
            if matched:
                return route, {name: unquote(value) for name, value in matched.groupdict().items()}
        raise _Answer(
            403, {"message": "Missing Authentication Token"}, "MissingAuthenticationTokenException"
        )

    def _authorize(self, headers: dict[str, str], method: str, path: str) -> dict:
        authorizer = self.api.authorizer
        assert authorizer is not None  # asked only for an API with one
        header = headers.get(authorizer.header)
        unauthorized = _Answer(401, {"message": "Unauthorized"}, "UnauthorizedException")
        if header is None:
            unauthorized.reason = "no Authorization header"
            raise unauthorized
        if authorizer.validation is not None and not authorizer.validation.search(header):
            unauthorized.reason = "the Authorization header is not a Bearer token"
            raise unauthorized
        arn = f"arn:aws:execute-api:{self._region}:000000000000:local/{STAGE}/{method}{path}"
        outcome = self._lambdas.invoke(
            authorizer.function,
            json.dumps({"type": "TOKEN", "authorizationToken": header, "methodArn": arn}),
        )
        if outcome.error is not None:
            if outcome.error.get("errorMessage") == "Unauthorized":
                unauthorized.reason = "the authorizer refused the token"
                raise unauthorized
            raise _Answer(
                500,
                {"message": None},
                "AuthorizerConfigurationException",
                reason=outcome.error.get("errorMessage"),
            )
        assert outcome.result is not None  # what did not fail answered
        policy = json.loads(outcome.result)
        statements = policy.get("policyDocument", {}).get("Statement", [])
        if not statements or any(s.get("Effect") != "Allow" for s in statements):
            raise _Answer(
                403,
                {"Message": "User is not authorized to access this resource with an explicit deny"},
                "AccessDeniedException",
            )
        return {"principalId": policy.get("principalId"), **(policy.get("context") or {})}

    def _invoke(self, function: str, event: dict):
        deaths = self._aws_up()
        outcome = self._lambdas.invoke(
            function, json.dumps(event), wait_seconds=INTEGRATION_TIMEOUT_SECONDS
        )
        if outcome.error is not None and outcome.error["errorType"] == "TooManyRequestsException":
            raise _Answer(
                504,
                {"message": "Endpoint request timed out"},
                "IntegrationTimeout",
                reason=outcome.error["errorMessage"],
            )
        if outcome.error is not None:
            raise _Answer(
                502,
                {"message": "Internal server error"},
                "InternalServerErrorException",
                reason=f"{function}: {outcome.error.get('errorType')}: "
                f"{outcome.error.get('errorMessage')}",
            )
        try:
            response = json.loads(outcome.result or "")  # none: malformed as well
            status = int(response["statusCode"])
            headers = {
                **(response.get("headers") or {}),
                **(response.get("multiValueHeaders") or {}),
            }
            body = response.get("body") or ""
            body = (
                base64.b64decode(body) if response.get("isBase64Encoded") else body.encode("utf-8")
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            raise _Answer(
                502,
                {"message": "Internal server error"},
                "InternalServerErrorException",
                reason=f"{function}: a malformed proxy response",
            ) from None
        if status == 500 and self._aws is not None and self._aws.failed_since(deaths):
            raise _aws_unavailable("the AWS emulator died during this request")
        return status, headers, body

    def _aws_up(self) -> int:
        """Wait, if the emulator is restarting, rather than run a function that would
        fail on its dead port; returns how many times it had died by then (0 for an API
        that does not use it)."""
        if self._aws is None:
            return 0
        if not self._aws.wait_until_up(WAIT_SECONDS):
            raise _aws_unavailable(self._aws.trouble or "the AWS emulator is not answering")
        return self._aws.deaths
