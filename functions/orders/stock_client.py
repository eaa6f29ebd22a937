"""The stock check: the inventory's stock endpoint over HTTP, through a circuit breaker.

Failures the breaker counts are the inventory's own only: the connection refused or
reset, no answer within the timeout, a 5xx. A 404 or a `false` is the inventory
answering correctly. Nothing about the caller's request can count: the token is sent
only as a well-formed JWT the authorizer accepted, rebuilt as `Bearer <token>`, never
as the bytes the client sent, and a request that cannot even be built is not the
inventory's fault. While the breaker is open, callers are refused at once; after the
reset time exactly one trial call goes through (orders.breaker).
"""

import json
import re
from urllib.parse import urlencode

import pybreaker
import urllib3
from urllib3.exceptions import LocationValueError

from common.settings import Settings
from orders.breaker import ConcurrentBreaker
from orders.rules import InventoryUnavailable, StockAnswer

# A JWS in compact form: three base64url parts. Anything else is not sent.
_JWT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


class _InventoryFailed(Exception):
    """A failure of the inventory itself: the breaker counts it."""


class StockChecker:
    def __init__(self, *, fail_max: int, reset_seconds: float, timeout_seconds: float):
        self.breaker = ConcurrentBreaker(fail_max=fail_max, reset_timeout=reset_seconds,
                                         name="inventory-stock-check",
                                         exclude=[lambda exc: not isinstance(
                                             exc, _InventoryFailed)])
        self.timeout_seconds = timeout_seconds
        # One pool per process: connections to the inventory are reused across orders.
        self._http = urllib3.PoolManager(maxsize=64, retries=False,
                                         timeout=urllib3.Timeout(total=timeout_seconds))

    @classmethod
    def from_settings(cls, settings: Settings) -> "StockChecker":
        """The process's breaker; on Lambda each container holds its own state."""
        return cls(fail_max=settings.breaker_fail_max,
                   reset_seconds=settings.breaker_reset_seconds,
                   timeout_seconds=settings.stock_check_timeout_seconds)

    def check(self, base_url: str, product_id: int, cantidad: int,
              token: str | None) -> StockAnswer:
        """Ask the inventory at `base_url` whether `cantidad` units of the product are in
        stock, as the caller whose bearer token is `token`."""
        try:
            return self.breaker.call(self._ask, base_url, product_id, cantidad, token)
        except pybreaker.CircuitBreakerError:
            raise InventoryUnavailable(self.breaker.seconds_until_trial()) from None
        except _InventoryFailed:
            return StockAnswer.NOT_CONFIRMED  # the fallback, while the breaker is closed
        except (ValueError, LocationValueError):
            return StockAnswer.NOT_CONFIRMED  # a request that could not be built

    def _ask(self, base_url, product_id, cantidad, token) -> StockAnswer:
        url = f"{base_url}/api/inventario/{product_id}/stock?{urlencode({'cantidad': cantidad})}"
        headers = {"Authorization": f"Bearer {token}"} if token and _JWT.fullmatch(token) else {}
        try:
            response = self._http.request("GET", url, headers=headers)
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            if isinstance(exc, LocationValueError):
                raise
            raise _InventoryFailed(str(exc)) from exc  # refused, reset, timed out
        if response.status >= 500:
            raise _InventoryFailed(f"inventory answered {response.status}")
        if response.status == 404:
            return StockAnswer.UNKNOWN_PRODUCT
        if response.status == 200:
            try:
                answer = json.loads(response.data)
            except ValueError:
                answer = None
            if answer is True:
                return StockAnswer.AVAILABLE
            if answer is False:
                return StockAnswer.INSUFFICIENT
        # Another 4xx or a body that is not a boolean: the inventory is up but did not
        # confirm. Not counted, so a misconfigured caller cannot trip the breaker.
        return StockAnswer.NOT_CONFIRMED
