"""The stock check: the inventory asked, through a circuit breaker.

Two ways to ask the same question (the inventory's `GET /api/inventario/{id}/stock`):
- on AWS, a synchronous invoke of the inventory function with that request, so an
  order crosses API Gateway once (IAM lets only the orders function invoke it);
- when INVENTORY_SERVICE_URL is set, and locally, the endpoint over HTTP, on one
  connection pool per process, with the caller's bearer token.

Failures the breaker counts are the inventory's own only: unreachable, no answer within
STOCK_CHECK_TIMEOUT_SECONDS, throttled, crashed, or a 5xx. A 404 or a `false` is the
inventory answering correctly. Nothing about the caller's request can count: the token
is sent only as a well-formed JWT the authorizer accepted, rebuilt as `Bearer <token>`,
never as the bytes the client sent, and a request that cannot even be built is not the
inventory's fault. While the breaker is open, callers are refused at once; after the
reset time exactly one trial call goes through (orders.breaker).
"""

import json
import re
import time
import uuid
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlencode

import pybreaker
import urllib3
from botocore.exceptions import BotoCoreError, ClientError
from urllib3.exceptions import LocationValueError

from common import aws, metrics
from common.http import rest_event
from common.logs import get_logger
from common.settings import Settings
from common.tracing import tracer
from orders.breaker import ConcurrentBreaker
from orders.outcomes import SERVICE
from orders.rules import InventoryUnavailable, StockAnswer

# A JWS in compact form: three base64url parts. Anything else is not sent.
_JWT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")
STOCK_ROUTE = "/api/inventario/{id}/stock"


class InventoryFailed(Exception):
    """A failure of the inventory itself: the breaker counts it."""


@dataclass(frozen=True)
class Caller:
    """Who places the order, as the stock check passes it on."""

    token: str | None  # the bearer token the authorizer accepted
    sub: str | None
    gateway_url: str  # the gateway the order came in on
    request_id: str | None = None  # the order's correlation id


class Inventory(Protocol):
    def stock(self, product_id: int, cantidad: int, caller: Caller) -> tuple[int, bytes]:
        """The stock endpoint's status and body; InventoryFailed when it cannot answer."""


class InventoryOverHttp:
    """`{url}/api/inventario/{id}/stock` over HTTP; `url` None: the caller's gateway."""

    def __init__(self, url: str | None, timeout_seconds: float):
        self._url = url
        # One pool per process: connections to the inventory are reused across orders.
        self._http = urllib3.PoolManager(maxsize=64, retries=False,
                                         timeout=urllib3.Timeout(total=timeout_seconds))

    def stock(self, product_id: int, cantidad: int, caller: Caller) -> tuple[int, bytes]:
        path = STOCK_ROUTE.format(id=product_id)
        url = f"{self._url or caller.gateway_url}{path}?{urlencode({'cantidad': cantidad})}"
        token = caller.token
        headers = {"Authorization": f"Bearer {token}"} if token and _JWT.fullmatch(token) else {}
        try:
            response = self._http.request("GET", url, headers=headers)
        except LocationValueError:
            raise
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise InventoryFailed(str(exc)) from exc  # refused, reset, timed out
        return response.status, response.data


class InventoryFunction:
    """The inventory function invoked with the stock check's API Gateway event, as the
    gateway would have sent it after its authorizer: the same route, the same code."""

    def __init__(self, function_name: str, client):
        self._function = function_name
        self._client = client

    @classmethod
    def from_settings(cls, settings: Settings, client=None) -> "InventoryFunction":
        # The process's client: STOCK_CHECK_TIMEOUT_SECONDS, never retried inline (a retry
        # is the breaker's call to make).
        return cls(settings.inventory_function, client or aws.lambda_client(settings))

    def stock(self, product_id: int, cantidad: int, caller: Caller) -> tuple[int, bytes]:
        event = stock_check_event(product_id, cantidad, caller)
        try:
            answer = self._client.invoke(FunctionName=self._function,
                                         InvocationType="RequestResponse",
                                         Payload=json.dumps(event).encode())
            response = json.loads(answer["Payload"].read())
        except (BotoCoreError, ClientError, ValueError) as exc:  # timeout, throttled, down
            raise InventoryFailed(str(exc)) from exc
        if answer.get("FunctionError") or not isinstance(response, dict):
            raise InventoryFailed(f"the inventory function failed: {response!r}")
        body = response.get("body") or ""
        return int(response.get("statusCode", 500)), body.encode("utf-8")


def stock_check_event(product_id: int, cantidad: int, caller: Caller) -> dict:
    """An API Gateway REST event for the stock check, authorized as the caller."""
    return rest_event("GET", STOCK_ROUTE, path_parameters={"id": str(product_id)},
                      query={"cantidad": str(cantidad)}, headers={"Accept": "application/json"},
                      # The order's correlation id: the two log lines of an order join on it.
                      request_id=caller.request_id or str(uuid.uuid4()),
                      authorizer={"principalId": caller.sub, "sub": caller.sub})


class _Opened(pybreaker.CircuitBreakerListener):
    """Counts and logs each time the breaker opens: operators alarm on it."""

    def __init__(self, logger):
        self._logger = logger

    def state_change(self, cb, old_state, new_state) -> None:
        if new_state.name == pybreaker.STATE_OPEN:
            self._logger.warning("stock-check breaker opened",
                                 extra={"reset_seconds": cb.reset_timeout})
            metrics.count(metrics.BREAKER_OPENED, service=SERVICE)


class StockChecker:
    def __init__(self, *, fail_max: int, reset_seconds: float, inventory: Inventory,
                 logger=None):
        self.breaker = ConcurrentBreaker(fail_max=fail_max, reset_timeout=reset_seconds,
                                         name="inventory-stock-check",
                                         exclude=[lambda exc: not isinstance(
                                             exc, InventoryFailed)],
                                         listeners=[_Opened(logger or get_logger(SERVICE))])
        self._inventory = inventory

    @classmethod
    def from_settings(cls, settings: Settings, lambda_client=None) -> "StockChecker":
        """The process's breaker (each Lambda container holds its own), asking the
        inventory the way the settings say: over HTTP when given a URL, else by invoking
        the inventory function when given one, else over HTTP through the gateway the
        order came in on."""
        if settings.inventory_service_url or not settings.inventory_function:
            inventory = InventoryOverHttp(settings.inventory_service_url,
                                          settings.stock_check_timeout_seconds)
        else:
            inventory = InventoryFunction.from_settings(settings, lambda_client)
        return cls(fail_max=settings.breaker_fail_max,
                   reset_seconds=settings.breaker_reset_seconds, inventory=inventory)

    @tracer.capture_method(capture_response=False)
    def check(self, product_id: int, cantidad: int, caller: Caller) -> StockAnswer:
        """Whether `cantidad` units of the product are in stock, asked as `caller`."""
        try:
            return self.breaker.call(self._ask, product_id, cantidad, caller)
        except pybreaker.CircuitBreakerError:
            raise InventoryUnavailable(self.breaker.seconds_until_trial()) from None
        except InventoryFailed:
            return StockAnswer.NOT_CONFIRMED  # the fallback, while the breaker is closed
        except (ValueError, LocationValueError):
            return StockAnswer.NOT_CONFIRMED  # a request that could not be built

    def _ask(self, product_id: int, cantidad: int, caller: Caller) -> StockAnswer:
        started = time.perf_counter()
        try:
            status, body = self._inventory.stock(product_id, cantidad, caller)
        finally:  # a failure's time is the one operators most need to see
            metrics.milliseconds(metrics.STOCK_CHECK_LATENCY,
                                 (time.perf_counter() - started) * 1000, service=SERVICE)
        if status >= 500:
            raise InventoryFailed(f"inventory answered {status}")
        if status == 404:
            return StockAnswer.UNKNOWN_PRODUCT
        if status == 200:
            try:
                answer = json.loads(body)
            except ValueError:
                answer = None
            if answer is True:
                return StockAnswer.AVAILABLE
            if answer is False:
                return StockAnswer.INSUFFICIENT
        # Another 4xx or a body that is not a boolean: the inventory is up but did not
        # confirm. Not counted, so a misconfigured caller cannot trip the breaker.
        return StockAnswer.NOT_CONFIRMED
