"""The stock check: an HTTP call to the inventory endpoint through a circuit breaker.

Failures the breaker counts: connection errors, timeouts and 5xx. A 404 or a `false`
is the inventory answering correctly and counts as a success. While the breaker is
open, callers are refused at once; after the reset time pybreaker lets one trial call
through (its lock holds the other callers until the trial has decided).
"""

import math
import time

import pybreaker
import requests

from common.settings import Settings
from orders.rules import InventoryUnavailable, StockAnswer


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
    def from_settings(cls, settings: Settings) -> "StockChecker":
        """The process's breaker; on Lambda each container holds its own state."""
        return cls(fail_max=settings.breaker_fail_max,
                   reset_seconds=settings.breaker_reset_seconds,
                   timeout_seconds=settings.stock_check_timeout_seconds)

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

