"""The stock check: an HTTP call to the inventory endpoint through a circuit breaker.

Failures the breaker counts: connection errors, timeouts and 5xx. A 404 or a `false`
is the inventory answering correctly and counts as a success. While the breaker is
open, callers are refused at once; after the reset time pybreaker lets one trial call
through (its lock holds the other callers until the trial has decided).
"""

import enum
import math
import time

import pybreaker
import requests

from common import config


class StockAnswer(enum.Enum):
    AVAILABLE = "available"
    INSUFFICIENT = "insufficient"
    UNKNOWN_PRODUCT = "unknown product"
    NOT_CONFIRMED = "not confirmed"  # the fallback: the call failed, the breaker is closed


class InventoryUnavailable(Exception):
    """The breaker is open: the inventory is not asked at all."""

    def __init__(self, retry_after_seconds: int):
        super().__init__(f"inventory unavailable, retry in {retry_after_seconds}s")
        self.retry_after_seconds = retry_after_seconds


class _CallFailed(Exception):
    """A failure the breaker counts."""


class _OpenedAt(pybreaker.CircuitBreakerListener):
    def __init__(self):
        self.moment = time.monotonic()

    def state_change(self, cb, old_state, new_state):
        if new_state.name == pybreaker.STATE_OPEN:
            self.moment = time.monotonic()


class StockChecker:
    def __init__(self, *, fail_max: int, reset_seconds: float, timeout_seconds: float):
        self._opened = _OpenedAt()
        self.breaker = pybreaker.CircuitBreaker(
            fail_max=fail_max, reset_timeout=reset_seconds, name="inventory-stock-check",
            listeners=[self._opened])
        self.timeout_seconds = timeout_seconds

    @classmethod
    def from_environment(cls) -> "StockChecker":
        return cls(fail_max=config.breaker_fail_max(),
                   reset_seconds=config.breaker_reset_seconds(),
                   timeout_seconds=config.stock_check_timeout_seconds())

    def check(self, base_url: str, product_id: int, cantidad: int,
              authorization: str | None) -> StockAnswer:
        try:
            return self.breaker.call(self._ask, base_url, product_id, cantidad, authorization)
        except pybreaker.CircuitBreakerError:
            raise InventoryUnavailable(self._retry_after()) from None
        except _CallFailed:
            return StockAnswer.NOT_CONFIRMED

    def _ask(self, base_url, product_id, cantidad, authorization) -> StockAnswer:
        url = f"{base_url}/api/inventario/{product_id}/stock"
        headers = {"Authorization": authorization} if authorization else {}
        try:
            response = requests.get(url, params={"cantidad": cantidad}, headers=headers,
                                    timeout=self.timeout_seconds)
        except requests.RequestException as exc:  # refused, reset, DNS, timeout
            raise _CallFailed(str(exc)) from exc
        if response.status_code >= 500:
            raise _CallFailed(f"inventory answered {response.status_code}")
        if response.status_code == 404:
            return StockAnswer.UNKNOWN_PRODUCT
        if response.status_code == 200:
            try:
                answer = response.json()
            except ValueError:
                answer = None
            if answer is True:
                return StockAnswer.AVAILABLE
            if answer is False:
                return StockAnswer.INSUFFICIENT
        # Another 4xx or a body that is not a boolean: the inventory is up but did not
        # confirm. Not counted, so a misconfigured caller cannot trip the breaker.
        return StockAnswer.NOT_CONFIRMED

    def _retry_after(self) -> int:
        remaining = self._opened.moment + self.breaker.reset_timeout - time.monotonic()
        return max(1, math.ceil(remaining))


_checker: StockChecker | None = None


def checker() -> StockChecker:
    """The process's breaker; on Lambda each container holds its own state."""
    global _checker
    if _checker is None:
        _checker = StockChecker.from_environment()
    return _checker


def reset_checker() -> None:
    """Forget the breaker so the next call re-reads the environment (tests, reconfig)."""
    global _checker
    _checker = None


def gateway_base_url(request) -> str:
    """The base URL of the gateway a request came in on, stage prefix included.

    Used when INVENTORY_SERVICE_URL is unset: inventory sits behind the same gateway.
    It is read from what API Gateway itself puts in the event, never from headers the
    client chose (a forged Host would send the stock check, and the caller's token, to
    a server that always says `true`). Outside API Gateway the local stack sets
    INVENTORY_SERVICE_URL; the Host header is only the last resort of a bare
    `chalice local`.
    """
    event = request.to_original_event()
    context = event.get("requestContext") or {}
    domain = context.get("domainName")
    if not domain:
        return f"http://{request.headers.get('host', '127.0.0.1')}"
    full_path, own_path = context.get("path", ""), event.get("path")
    prefix = full_path[: -len(own_path)] if own_path and full_path.endswith(own_path) else ""
    return f"https://{domain}{prefix}"
