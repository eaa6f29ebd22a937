"""The inventory asked to move an order's units (docs/api.md#stock-follows-orders):
reserve them (approve), take them out (ship), give them back (cancel), and the moves that
undo one; and what it holds, for the repair (stock_repair).

The inventory owns its units: this never writes its tables, it asks its function, by a
direct invoke as a service (common.callers.SERVICE: the moves' routes are the inventory's
internal ones, which no token reaches), through the stock check's breaker, so an
inventory outage refuses moves at once as it refuses orders. Each move is keyed by the
order on the inventory's side, so asking twice (a retry, a lost answer) makes it once.
"""

import json
import math
from collections.abc import Callable
from typing import Any

import pybreaker

from common import aws, stock
from common.callers import service_caller
from common.errors import Conflict, Unavailable
from common.service_calls import ByInvoke, CallFailed, OnBehalf, Routes
from common.settings import Settings
from orders.metrics import SERVICE
from orders.rules import InventoryUnavailable, Order, ReservationChanged, StatusChanged

# How soon to ask again after a move that could not be asked with the breaker closed.
RETRY_AFTER_SECONDS = 2


class StockMoves:
    def __init__(
        self,
        breaker: pybreaker.CircuitBreaker,
        inventory: Routes | None,
        seconds_until_trial: Callable[[], int],
    ):
        """`inventory`: the inventory's routes (its function, invoked, or this very app's);
        None where none is configured, and then no move can be made."""
        self._breaker, self._inventory = breaker, inventory
        self._seconds_until_trial = seconds_until_trial

    @classmethod
    def invoking(cls, settings: Settings, lambda_client: Any = None) -> "StockMoves":
        """Moves asked of the inventory's function (INVENTORY_FUNCTION) through a breaker
        of this process's own: the repair's, which runs alone (the API's is shared)."""
        breaker = pybreaker.CircuitBreaker(
            fail_max=settings.breaker_fail_max,
            reset_timeout=settings.breaker_reset_seconds,
            exclude=[lambda exc: not isinstance(exc, CallFailed)],
        )
        function = settings.inventory_function
        inventory = (
            ByInvoke(function, lambda_client or aws.lambda_client(settings)) if function else None
        )
        return cls(breaker, inventory, lambda: math.ceil(settings.breaker_reset_seconds))

    def move(
        self, move: str, order: Order, request_id: str | None = None, seen: str | None = None
    ) -> bool:
        """True when this call moved the units, False when they had moved before. A
        refusal is the inventory's Conflict (INSUFFICIENT_STOCK, PRODUCT_NOT_FOUND);
        units another move holds or took are StatusChanged (decide again);
        InventoryUnavailable when the inventory cannot be asked. `seen`: the
        reservation's `cambio` as the repair read it; the move is made only on the
        reservation as read, else ReservationChanged."""
        try:
            return self._move(move, order, request_id, seen)
        except StatusChanged:
            if move not in stock.OF_HELD_UNITS or self.reservation(order.id) is not None:
                raise
        self._move(stock.FORCE, order, request_id)  # approved before reservations existed
        return self._move(move, order, request_id)

    def _move(
        self, move: str, order: Order, request_id: str | None, seen: str | None = None
    ) -> bool:
        sent = {"productoId": order.producto_id, "cantidad": order.cantidad}
        status, body = self._ask(
            "POST",
            stock.MOVE_ROUTE,
            {"pedidoId": str(order.id), "accion": move},
            request_id=request_id,
            body=sent if seen is None else {**sent, "cambio": seen},
        )
        if status == 200 and isinstance(body, dict):
            return bool(body.get("aplicada"))
        error = body.get("error") if isinstance(body, dict) else None
        if status == 409 and error == stock.NOT_HELD:
            raise StatusChanged(order.id)
        if status == 409 and error == stock.CHANGED:
            raise ReservationChanged(order.id)
        if status == 409 and isinstance(body, dict):
            raise Conflict(str(error), str(body.get("message")), details=body.get("details"))
        raise _refused(status)

    def reservation(self, pedido_id: int) -> dict | None:
        """What the inventory keeps of the order's units (their state, product and
        count), or None when it never held any."""
        status, body = self._ask("GET", stock.RESERVATION_ROUTE, {"pedidoId": str(pedido_id)})
        if status == 404:
            return None
        if status != 200 or not isinstance(body, dict):
            raise _refused(status)
        return body

    def holding(self, after: int = 0) -> tuple[list[dict], int | None]:
        """A page of the reservations holding units, in ascending pedidoId after `after`,
        and where the next page starts (None: this was the last)."""
        status, body = self._ask("GET", stock.HOLDING_ROUTE, {}, query={"after": str(after)})
        if status != 200 or not isinstance(body, dict):
            raise _refused(status)
        return list(body.get("reservas") or []), body.get("siguiente")

    def _ask(
        self,
        method: str,
        route: str,
        parameters: dict[str, str],
        *,
        request_id: str | None = None,
        query: dict[str, str] | None = None,
        body: dict | None = None,
    ) -> tuple[int, Any]:
        inventory = self._inventory
        if inventory is None:
            raise Unavailable(
                "INVENTORY_UNAVAILABLE",
                "No inventory function is configured (INVENTORY_FUNCTION): stock cannot move",
                retry_after_seconds=RETRY_AFTER_SECONDS,
            )
        caller = OnBehalf(
            service_caller(SERVICE), token=None, gateway_url="", request_id=request_id
        )

        def ask() -> tuple[int, bytes]:
            answer = inventory.call(method, route, parameters, caller, query=query, body=body)
            if answer[0] >= 500:  # the inventory's own failure: the breaker counts it
                raise CallFailed(f"inventory answered {answer[0]}")
            return answer

        try:
            status, raw = self._breaker.call(ask)
        except pybreaker.CircuitBreakerError:
            raise InventoryUnavailable(self._seconds_until_trial()) from None
        except CallFailed:
            raise InventoryUnavailable(RETRY_AFTER_SECONDS) from None
        return status, _json(raw)


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def _refused(status: int) -> Unavailable:
    """An answer a move never gets from a working inventory (a 403, a 404 route): the
    functions' configuration is at fault, not the caller's request."""
    return Unavailable(
        "INVENTORY_UNAVAILABLE",
        f"The inventory refused the stock move (HTTP {status}); retry later",
        retry_after_seconds=RETRY_AFTER_SECONDS,
    )
