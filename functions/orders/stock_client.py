"""The stock check: the inventory asked, through a circuit breaker.

The question is the inventory's own `GET /api/inventario/{id}/stock`, asked as the caller
(common.service_calls: an invoke of the inventory function on AWS, HTTP when given a URL).

Failures the breaker counts are the inventory's own only: unreachable, no answer within
STOCK_CHECK_TIMEOUT_SECONDS, throttled, crashed, or a 5xx. A 404 or a `false` is the
inventory answering correctly. Nothing about the caller's request can count: the token
is sent only as a well-formed JWT the authorizer accepted, rebuilt as `Bearer <token>`,
never as the bytes the client sent, and a request that cannot even be built is not the
inventory's fault. While the breaker is open, callers are refused at once; after the
reset time exactly one trial call goes through (orders.breaker: pybreaker's breaker, its
state shared by every environment).
"""

import json
import math
import time
from typing import Any

import pybreaker

from common import aws, metrics
from common.logs import Logger, get_logger
from common.service_calls import ByInvoke, CallFailed, CannotAsk, OnBehalf, Routes, Service, service
from common.settings import Settings
from common.stock import STOCK_ROUTE
from common.tracing import tracer
from orders.breaker import NAME, DynamoDBStorage
from orders.metrics import SERVICE
from orders.rules import InventoryUnavailable, Order, StockAnswer
from orders.stock_moves import StockMoves


class _Opened(pybreaker.CircuitBreakerListener):
    """Counts and logs each opening this environment made (not those it notices another
    environment made): operators alarm on it."""

    def __init__(self, logger: Logger, storage: pybreaker.CircuitBreakerStorage):
        self._logger, self._storage = logger, storage

    def state_change(
        self,
        cb: pybreaker.CircuitBreaker,
        old_state: pybreaker.CircuitBreakerState | None,
        new_state: pybreaker.CircuitBreakerState,
    ) -> None:
        # Kept in this process's memory (tests), every opening is this environment's.
        storage = self._storage
        here = storage.opened_here if isinstance(storage, DynamoDBStorage) else True
        if new_state.name == pybreaker.STATE_OPEN and here:
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
        moves_to: Routes | None = None,
        storage: pybreaker.CircuitBreakerStorage | None = None,
        logger: Logger | None = None,
    ):
        """`moves_to`: the inventory's routes the stock moves are asked of (none: no move
        can be made); `storage`: where the breaker's state is kept (by default, in this
        process)."""
        self.storage = storage or pybreaker.CircuitMemoryStorage(pybreaker.STATE_CLOSED)
        self.breaker = pybreaker.CircuitBreaker(
            fail_max=fail_max,
            reset_timeout=reset_seconds,
            state_storage=self.storage,
            name=NAME,
            exclude=[lambda exc: not isinstance(exc, CallFailed)],
            listeners=[_Opened(logger or get_logger(SERVICE), self.storage)],
        )
        self._inventory = inventory
        self.moves = StockMoves(self.breaker, moves_to, self.seconds_until_trial)

    @classmethod
    def from_settings(
        cls, settings: Settings, lambda_client: Any = None, inventory_here: Routes | None = None
    ) -> "StockChecker":
        """The breaker every environment of the orders function shares (its state in
        CircuitBreakersTable), asking the inventory the way the settings say
        (common.service_calls.service); the stock moves invoke its function
        (INVENTORY_FUNCTION), or else, in an app that holds the inventory's routes too,
        are answered `inventory_here`."""
        client = None
        if settings.inventory_function:
            client = lambda_client or aws.lambda_client(settings)
        inventory = service(
            settings.inventory_service_url,
            settings.inventory_function,
            settings.stock_check_timeout_seconds,
            lambda: client,
        )
        moves_to = (
            ByInvoke(settings.inventory_function, client)
            if settings.inventory_function
            else inventory_here
        )
        storage = DynamoDBStorage(
            aws.dynamodb(settings),
            settings.table_name("CircuitBreakersTable"),
            settings.breaker_reset_seconds,
        )
        return cls(
            fail_max=settings.breaker_fail_max,
            reset_seconds=settings.breaker_reset_seconds,
            inventory=inventory,
            moves_to=moves_to,
            storage=storage,
        )

    def seconds_until_trial(self) -> int:
        """How long, rounded up and at least 1, until an open breaker lets a trial through."""
        opened = self.storage.opened_at
        left = (opened.timestamp() if opened else time.time()) + self.breaker.reset_timeout
        return max(1, math.ceil(left - time.time()))

    def move(self, move: str, order: Order, request_id: str | None = None) -> bool:
        """One stock move of the order's units (orders.stock_moves)."""
        return self.moves.move(move, order, request_id)

    @tracer.capture_method(capture_response=False)
    def check(self, producto_id: int, cantidad: int, on_behalf: OnBehalf) -> StockAnswer:
        """Whether `cantidad` units of the product are in stock, asked on behalf of the
        order's caller."""
        try:
            return self.breaker.call(self._ask, producto_id, cantidad, on_behalf)
        except pybreaker.CircuitBreakerError:
            raise InventoryUnavailable(self.seconds_until_trial()) from None
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
