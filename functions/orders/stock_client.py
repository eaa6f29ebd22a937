"""The stock check: the inventory asked, through a circuit breaker.

The question is the inventory's own `GET /api/inventario/{id}/stock`, asked as the caller
(common.service_calls: an invoke of the inventory function on AWS, HTTP when given a URL).

Failures the breaker counts are the inventory's own only: unreachable, no answer within
STOCK_CHECK_TIMEOUT_SECONDS, throttled, crashed, or a 5xx. A 404 or a `false` is the
inventory answering correctly. Nothing about the caller's request can count: the token
is sent only as a well-formed JWT the authorizer accepted, rebuilt as `Bearer <token>`,
never as the bytes the client sent, and a request that cannot even be built is not the
inventory's fault. While the breaker is open, callers are refused at once; after the
reset time exactly one trial call goes through (orders.breaker).
"""

import json
import time

import pybreaker

from common import aws, metrics
from common.logs import get_logger
from common.service_calls import CallFailed, CannotAsk, OnBehalf, Service, service
from common.settings import Settings
from common.tracing import tracer
from orders.breaker import ConcurrentBreaker
from orders.breaker_state import BreakerState, DynamoDBBreakerState
from orders.outcomes import SERVICE
from orders.rules import InventoryUnavailable, StockAnswer

STOCK_ROUTE = "/api/inventario/{id}/stock"


class _Opened(pybreaker.CircuitBreakerListener):
    """Counts and logs each time the breaker opens: operators alarm on it."""

    def __init__(self, logger):
        self._logger = logger

    def state_change(self, cb, old_state, new_state) -> None:
        if new_state.name == pybreaker.STATE_OPEN:
            self._logger.warning(
                "stock-check breaker opened", extra={"reset_seconds": cb.reset_timeout}
            )
            metrics.count(metrics.BREAKER_OPENED, service=SERVICE)


class StockChecker:
    def __init__(
        self,
        *,
        fail_max: int,
        reset_seconds: float,
        inventory: Service,
        state: BreakerState | None = None,
        logger=None,
    ):
        """`state`: where the breaker's state is kept (by default, in this process)."""
        self.breaker = ConcurrentBreaker(
            state or BreakerState(),
            fail_max=fail_max,
            reset_timeout=reset_seconds,
            name="inventory-stock-check",
            exclude=[lambda exc: not isinstance(exc, CallFailed)],
            listeners=[_Opened(logger or get_logger(SERVICE))],
        )
        self._inventory = inventory

    @classmethod
    def from_settings(cls, settings: Settings, lambda_client=None) -> "StockChecker":
        """The breaker every environment of the orders function shares (its state in
        CircuitBreakersTable), asking the inventory the way the settings say
        (common.service_calls.service)."""
        inventory = service(
            settings.inventory_service_url,
            settings.inventory_function,
            settings.stock_check_timeout_seconds,
            lambda: lambda_client or aws.lambda_client(settings),
        )
        state = DynamoDBBreakerState(
            aws.dynamodb(settings), settings.table_name("CircuitBreakersTable")
        )
        return cls(
            fail_max=settings.breaker_fail_max,
            reset_seconds=settings.breaker_reset_seconds,
            inventory=inventory,
            state=state,
        )

    @tracer.capture_method(capture_response=False)
    def check(self, producto_id: int, cantidad: int, on_behalf: OnBehalf) -> StockAnswer:
        """Whether `cantidad` units of the product are in stock, asked on behalf of the
        order's caller."""
        try:
            return self.breaker.call(self._ask, producto_id, cantidad, on_behalf)
        except pybreaker.CircuitBreakerError:
            raise InventoryUnavailable(self.breaker.seconds_until_trial()) from None
        except CallFailed:
            return StockAnswer.NOT_CONFIRMED  # the fallback, while the breaker is closed
        except CannotAsk:
            return StockAnswer.NOT_CONFIRMED  # a request that could not be built

    def _ask(self, producto_id: int, cantidad: int, on_behalf: OnBehalf) -> StockAnswer:
        started = time.perf_counter()
        try:
            # The inventory's own route: the product is its {id}.
            status, body = self._inventory.get(
                STOCK_ROUTE, {"id": str(producto_id)}, {"cantidad": str(cantidad)}, on_behalf
            )
        finally:  # a failure's time is the one operators most need to see
            metrics.milliseconds(
                metrics.STOCK_CHECK_LATENCY, (time.perf_counter() - started) * 1000, service=SERVICE
            )
        if status >= 500:
            raise CallFailed(f"inventory answered {status}")
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
