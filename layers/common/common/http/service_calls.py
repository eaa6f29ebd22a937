"""One service asking another a question, as a client of its API would: the orders
service asks the inventory for stock, the shipping service asks the orders service whose
an order is. Services never import each other; they call, through one protocol (Routes),
whichever way the caller's wiring chose:
- on AWS, a synchronous invoke of the other service's function with the API Gateway event
  of the request, authorized as the original caller, so the call crosses API Gateway
  once (IAM says which function may invoke which);
- when given a URL, and locally, the endpoint over HTTP on one connection pool per
  process, with the caller's own bearer token;
- under `chalice local`, the same app's routes (common.http.service_app.InProcess).
"""

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlencode

import urllib3
from botocore.exceptions import BotoCoreError, ClientError
from urllib3.exceptions import LocationValueError

from common.http.gateway_events import rest_event
from common.identity.callers import Caller

# A JWS in compact form: three base64url parts. Anything else is never sent on.
_JWT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


class CallFailed(Exception):
    """The other service could not answer: unreachable, no answer in time, throttled,
    or its function failed."""


class CannotAsk(Exception):
    """The request could not even be built (nothing the other service did)."""


@dataclass(frozen=True)
class OnBehalf:
    """Who a call between services is made for, and what it needs to pass that on."""

    caller: Caller
    token: str | None  # the bearer token the authorizer accepted
    gateway_url: str  # the gateway the original request came in on
    request_id: str | None = None  # its correlation id: the services' log lines join on it


class Routes(Protocol):
    """Another service's routes, any method, with a JSON body (OverHttp, ByInvoke,
    InProcess)."""

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
        """The route's status and body; CallFailed when the service cannot answer,
        CannotAsk when the request cannot be built."""


class OverHttp:
    """The other service's API over HTTP at `url` (None: the gateway the request came in on)."""

    def __init__(self, url: str | None, timeout_seconds: float):
        self._url = url
        self._http = urllib3.PoolManager(
            maxsize=64, retries=False, timeout=urllib3.Timeout(total=timeout_seconds)
        )

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
        """The route of the API, as its client would ask it: the caller's token, if it is
        one the authorizer would take."""
        path = route.format(**path_parameters)
        url = f"{self._url or on_behalf.gateway_url}{path}"
        if query:
            url += f"?{urlencode(query)}"
        token = on_behalf.token
        headers = {"Authorization": f"Bearer {token}"} if token and _JWT.fullmatch(token) else {}
        sent = None if body is None else json.dumps(body).encode()
        if sent is not None:
            headers["Content-Type"] = "application/json"
        try:
            response = self._http.request(method, url, headers=headers, body=sent)
        except (LocationValueError, ValueError) as exc:
            raise CannotAsk(str(exc)) from exc
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise CallFailed(str(exc)) from exc  # refused, reset, timed out
        return response.status, response.data


class ByInvoke:
    """The other service's function invoked with the request's API Gateway event, as the
    gateway would have sent it after its authorizer: the same route, the same code."""

    def __init__(self, function_name: str, client: Any):
        self._function = function_name
        self._lambda = client  # quick to give up, never retried inline (common.platform.aws)

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
        """Any route of the other service, with a JSON body: also those only another
        service may call (their caller is a service, common.identity.callers.SERVICE, which no
        token can carry and only such an invoke does)."""
        event = routed_event(method, route, path_parameters, on_behalf, query, body)
        try:
            answer = self._lambda.invoke(
                FunctionName=self._function,
                InvocationType="RequestResponse",
                Payload=json.dumps(event).encode(),
            )
            response = json.loads(answer["Payload"].read())
        except (BotoCoreError, ClientError, ValueError) as exc:  # timeout, throttled, down
            raise CallFailed(str(exc)) from exc
        if answer.get("FunctionError"):
            raise CallFailed(f"the function failed: {response!r}")
        return answered(response)


def routed_event(
    method: str,
    route: str,
    path_parameters: dict[str, str],
    on_behalf: OnBehalf,
    query: dict[str, str] | None = None,
    body: dict | None = None,
) -> dict:
    """The API Gateway event of the request, as its authorizer passed it on."""
    return rest_event(
        method,
        route,
        path_parameters=path_parameters,
        query=query or None,
        headers={"Accept": "application/json", "Content-Type": "application/json"},
        body=json.dumps(body) if body is not None else None,
        request_id=on_behalf.request_id or str(uuid.uuid4()),
        authorizer={"principalId": on_behalf.caller.sub, **on_behalf.caller.context()},
    )


def answered(response: Any) -> tuple[int, bytes]:
    """The status and body of a route's answer (an API Gateway proxy response)."""
    if not isinstance(response, dict):
        raise CallFailed(f"the function failed: {response!r}")
    answered = response.get("body") or ""
    return int(response.get("statusCode", 500)), answered.encode("utf-8")


def service(
    url: str | None, function: str | None, timeout_seconds: float, lambda_client: Callable[[], Any]
) -> Routes:
    """How to reach a service, as the settings say: over HTTP when given a URL, else by
    invoking its function when given one, else over HTTP through the gateway the request
    came in on. `lambda_client()` builds the Lambda client, only when needed."""
    if url or not function:
        return OverHttp(url, timeout_seconds)
    return ByInvoke(function, lambda_client())
