"""The one way to the inventory: the port the orders' use cases and the stock repair ask it
through (Inventory), and its adapter (StockClient), one circuit breaker around every call.

- The stock check of an order being placed: the inventory's own
  `GET /api/inventario/{id}/stock`, asked as the order's caller
  (docs/api.md#placing-an-order-the-stock-check); or every line of an order at once, by
  the inventory's internal batch check (docs/api.md#orders-of-several-lines), which also
  says what each line's product is (its sku, name and price) when the order is placed.
- The stock moves of an order's units and the reservations the repair reads
  (docs/api.md#stock-follows-orders, common.stock.moves): the inventory's internal routes,
  asked as a service (common.identity.callers.SERVICE), which no token reaches. The inventory owns
  its units: nothing here writes its tables. Each move is keyed by the order on the
  inventory's side, so asking twice (a retry, a lost answer) makes it once.

How each reaches the inventory (common.http.service_calls: a direct invoke of its function on
AWS, HTTP when given a URL, the gateway app's own routes under `chalice local`) is chosen
once, by the function's wiring.

Failures the breaker counts are the inventory's own only: unreachable, no answer within
STOCK_CHECK_TIMEOUT_SECONDS, throttled, crashed, or a 5xx. A 404 or a `false` is the
inventory answering correctly. Nothing about the caller's request can count: the token is
sent only as a well-formed JWT the authorizer accepted, rebuilt as `Bearer <token>`, never
as the bytes the client sent, and a request that cannot even be built is not the
inventory's fault. While the breaker is open every call is refused at once, so an outage
refuses moves as it refuses orders; after the reset time exactly one trial call goes
through (pybreaker's breaker; in the orders function its state is shared by every
environment: common.stock.breaker).
"""

import enum
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pybreaker

from common.http.service_calls import CallFailed, CannotAsk, OnBehalf, Routes
from common.identity.callers import service_caller
from common.platform import jsonio, metrics
from common.platform.errors import Conflict, Invalid, NotFound, Unavailable
from common.platform.logs import Logger, get_logger
from common.platform.tracing import tracer
from common.stock import moves as stock
from common.stock.breaker import NAME, DynamoDBStorage

# How soon to ask again after a move that could not be asked with the breaker closed.
RETRY_AFTER_SECONDS = 2


class StockAnswer(enum.Enum):
    """What the inventory said about a product and a quantity."""

    AVAILABLE = "available"
    INSUFFICIENT = "insufficient"
    UNKNOWN_PRODUCT = "unknown product"
    NOT_CONFIRMED = "not confirmed"  # the fallback: the call failed, the breaker is closed


class InventoryUnavailable(Exception):
    """The inventory is not asked (the breaker is open), or could not answer a move."""

    def __init__(self, retry_after_seconds: int):
        super().__init__(f"inventory unavailable, retry in {retry_after_seconds}s")
        self.retry_after_seconds = retry_after_seconds


class NotHeld(Exception):
    """The order's units are in no state the move starts from: another move holds or took
    them (decide again)."""


class ReservationChanged(Exception):
    """The order's units moved since the repair read them: the request that moved them
    decides, and the repair leaves them alone."""


class Held(Protocol):
    """Units of a line in one warehouse (common.orders.records.Assignment)."""

    @property
    def bodega_id(self) -> int: ...
    @property
    def cantidad(self) -> int: ...


class Line(Protocol):
    """What a move needs of one line of an order (common.orders.records.OrderLine)."""

    @property
    def linea(self) -> int: ...
    @property
    def producto_id(self) -> int: ...
    @property
    def cantidad(self) -> int: ...
    @property
    def bodega_id(self) -> int | None: ...
    @property
    def asignaciones(self) -> Sequence[Held]: ...


class Units(Protocol):
    """What a move needs of an order: which it is, its lines and its strategy."""

    @property
    def id(self) -> int: ...
    @property
    def lineas(self) -> Sequence[Line]: ...
    @property
    def estrategia(self) -> str: ...


@dataclass(frozen=True)
class Moved:
    """A move's answer: whether this call made it (False: made before, a retry), and
    where each line's units are held, by line: [(bodegaId, cantidad)]."""

    applied: bool
    held: dict[int, list[tuple[int, int]]] = field(default_factory=dict)


def line_body(line: Line) -> dict:
    """A line as the inventory's moves and batch check take it."""
    sent: dict[str, Any] = {
        "linea": line.linea,
        "productoId": line.producto_id,
        "cantidad": line.cantidad,
    }
    if line.bodega_id is not None:
        sent["bodegaId"] = line.bodega_id
    if line.asignaciones:
        sent["asignaciones"] = [
            {"bodegaId": a.bodega_id, "cantidad": a.cantidad} for a in line.asignaciones
        ]
    return sent


class Inventory(Protocol):
    """The inventory, as the orders' use cases and the repair ask it."""

    @property
    def checks_lines(self) -> bool:
        """Whether an order of the contract's `productoId` and `cantidad` is checked by the
        batch check too (False: by the contract's route, at a URL of the inventory's API)."""

    def check(self, producto_id: int, cantidad: int, on_behalf: OnBehalf) -> StockAnswer:
        """The inventory's answer, asked on behalf of the order's caller;
        InventoryUnavailable when the breaker is open."""

    def check_lines(self, lines: Sequence[Line], request_id: str | None = None) -> list | None:
        """The batch check of an order's lines: what the inventory says of each
        ({"linea", "productoId", "estado", "sku", "nombre", "precioUnitario"}: estado one
        of common.stock.moves.LINE_*); None when it could not be confirmed (the call
        failed while the breaker is closed); InventoryUnavailable when it is open."""

    def move(
        self, move: str, order: Units, request_id: str | None = None, seen: str | None = None
    ) -> Moved:
        """One move of the order's units (common.stock.moves): applied when this call made
        it, not when it was made before. A refusal is the inventory's Conflict
        (INSUFFICIENT_STOCK, PRODUCT_NOT_FOUND); units another move holds or took are
        NotHeld; InventoryUnavailable when the inventory cannot be asked. `seen`: the
        reservation's `cambio` as the repair read it; the move is made only on the
        reservation as read, else ReservationChanged."""

    def reservation(self, pedido_id: int) -> dict | None:
        """What the inventory keeps of the order's units (their state, product and count),
        or None when it never held any."""

    def holding(self, after: int = 0) -> tuple[list[dict], int | None]:
        """A page of the reservations holding units, in ascending pedidoId after `after`,
        and where the next page starts (None: this was the last)."""

    def balance(self, shard: int, after: int, settled_before: str) -> tuple[list[dict], int | None]:
        """The invariant check of a page of one slice of the catalog, what differs put
        right: what it found, and where the slice goes on (None: its end)."""

    def restock(self, devolucion_id: int, lines: list[dict], request_id: str | None = None) -> bool:
        """A return's units back into stock ([{"productoId", "bodegaId", "cantidad"}]),
        once whatever the retries: True when this call made it. Invalid (400) for an
        unknown warehouse; NotFound (PRODUCT_NOT_FOUND) for products deleted since, its
        details naming each such line (`lineas[i].productoId`, i in `lines`); the
        inventory's Conflict (RESTOCK_DIFFERS: made before with other units);
        InventoryUnavailable when it cannot be asked."""


# The inventory's answer to a restock of a product deleted since (docs/api.md#returns).
PRODUCT_GONE = "PRODUCT_NOT_FOUND"


class _Opened(pybreaker.CircuitBreakerListener):
    """Counts and logs each opening this environment made (not those it notices another
    environment made): operators alarm on it."""

    def __init__(self, logger: Logger, storage: pybreaker.CircuitBreakerStorage, service: str):
        self._logger, self._storage, self._service = logger, storage, service

    def state_change(
        self,
        cb: pybreaker.CircuitBreaker,
        old_state: pybreaker.CircuitBreakerState | None,
        new_state: pybreaker.CircuitBreakerState,
    ) -> None:
        # Kept in this process's memory, every opening is this environment's.
        storage = self._storage
        here = storage.opened_here if isinstance(storage, DynamoDBStorage) else True
        if new_state.name == pybreaker.STATE_OPEN and here:
            self._logger.warning(
                "stock-check breaker opened", extra={"reset_seconds": cb.reset_timeout}
            )
            metrics.count(metrics.BREAKER_OPENED, service=self._service)


class StockClient:
    def __init__(
        self,
        *,
        fail_max: int,
        reset_seconds: float,
        service: str,
        checks: Routes | None = None,
        moves: Routes | None = None,
        storage: pybreaker.CircuitBreakerStorage | None = None,
        alarmed: bool = True,
        logger: Logger | None = None,
        checks_lines: bool = True,
    ):
        """`service`: who asks (the caller the inventory sees, the service of the metrics
        and the log lines); `checks`: the inventory's API the stock check is asked of;
        `moves`: its internal routes (None: no move can be made, nor a check without
        `checks`); `storage`: where the breaker's state is kept (by default, in this
        process); `alarmed`: each opening is counted and logged (the orders API's breaker,
        whose openings refuse orders: operators alarm on them); `checks_lines`: an order
        of one `productoId` is checked by the batch check too (False: when the stock
        check is given a URL of the inventory's API, the contract's route there)."""
        self.storage = storage or pybreaker.CircuitMemoryStorage(pybreaker.STATE_CLOSED)
        opened = _Opened(logger or get_logger(service), self.storage, service)
        self.breaker = pybreaker.CircuitBreaker(
            fail_max=fail_max,
            reset_timeout=reset_seconds,
            state_storage=self.storage,
            name=NAME,
            exclude=[lambda exc: not isinstance(exc, CallFailed)],
            listeners=[opened] if alarmed else [],
        )
        self._service, self._checks, self._moves = service, checks, moves
        self.checks_lines = checks_lines and moves is not None

    def seconds_until_trial(self) -> int:
        """How long, rounded up and at least 1, until an open breaker lets a trial through."""
        opened = self.storage.opened_at
        left = (opened.timestamp() if opened else time.time()) + self.breaker.reset_timeout
        return max(1, math.ceil(left - time.time()))

    def _call(self, routes: Routes | None, ask: Callable[[Routes], tuple[int, bytes]]) -> Any:
        """`ask` of `routes` through the breaker: the status and the body; a 5xx is the
        inventory's own failure (CallFailed, counted)."""
        if routes is None:
            raise Unavailable(
                "INVENTORY_UNAVAILABLE",
                "No inventory function is configured (INVENTORY_FUNCTION): stock cannot move",
                retry_after_seconds=RETRY_AFTER_SECONDS,
            )

        def counted() -> tuple[int, bytes]:
            status, body = ask(routes)
            if status >= 500:
                raise CallFailed(f"inventory answered {status}")
            return status, body

        try:
            return self.breaker.call(counted)
        except pybreaker.CircuitBreakerError:
            raise InventoryUnavailable(self.seconds_until_trial()) from None

    # -- the stock check ---------------------------------------------------------------------

    @tracer.capture_method(capture_response=False)
    def check(self, producto_id: int, cantidad: int, on_behalf: OnBehalf) -> StockAnswer:
        """Whether `cantidad` units of the product are in stock, asked on behalf of the
        order's caller."""

        def timed(routes: Routes) -> tuple[int, bytes]:
            started = time.perf_counter()
            try:  # the inventory's own route: the product is its {id}
                return routes.call(
                    "GET",
                    stock.STOCK_ROUTE,
                    {"id": str(producto_id)},
                    on_behalf,
                    query={"cantidad": str(cantidad)},
                )
            finally:  # a failure's time is the one operators most need to see
                elapsed = (time.perf_counter() - started) * 1000
                metrics.milliseconds(metrics.STOCK_CHECK_LATENCY, elapsed, service=self._service)

        try:
            status, body = self._call(self._checks, timed)
        except (CallFailed, CannotAsk):  # the fallback while the breaker is closed, or a
            return StockAnswer.NOT_CONFIRMED  # request that could not be built
        if status == 404:
            return StockAnswer.UNKNOWN_PRODUCT
        answer = _json(body) if status == 200 else None
        if answer is True or answer is False:
            return StockAnswer.AVAILABLE if answer else StockAnswer.INSUFFICIENT
        # Another 4xx or a body that is not a boolean: the inventory is up but did not
        # confirm. Not counted, so a misconfigured caller cannot trip the breaker.
        return StockAnswer.NOT_CONFIRMED

    @tracer.capture_method(capture_response=False)
    def check_lines(self, lines: Sequence[Line], request_id: str | None = None) -> list | None:
        """Inventory.check_lines."""
        started = time.perf_counter()
        try:
            status, body = self._internal(
                "POST",
                stock.CHECK_ROUTE,
                {},
                request_id=request_id,
                body={"lineas": [line_body(line) for line in lines]},
                unavailable=False,
            )
        except (CallFailed, CannotAsk):
            return None  # the fallback while the breaker is closed
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            metrics.milliseconds(metrics.STOCK_CHECK_LATENCY, elapsed, service=self._service)
        if status != 200 or not isinstance(body, dict) or not isinstance(body.get("lineas"), list):
            return None  # up, but it did not confirm (not counted)
        return body["lineas"]

    # -- the moves and the reservations ----------------------------------------------------

    def move(
        self, move: str, order: Units, request_id: str | None = None, seen: str | None = None
    ) -> Moved:
        """Inventory.move."""
        try:
            return self._move(move, order, request_id, seen)
        except NotHeld:
            if move not in stock.OF_HELD_UNITS or self.reservation(order.id) is not None:
                raise
        self._move(stock.FORCE, order, request_id)  # approved before reservations existed
        return self._move(move, order, request_id)

    def _move(
        self, move: str, order: Units, request_id: str | None, seen: str | None = None
    ) -> Moved:
        sent = {
            "lineas": [line_body(line) for line in order.lineas],
            "estrategia": order.estrategia,
        }
        status, body = self._internal(
            "POST",
            stock.MOVE_ROUTE,
            {"pedidoId": str(order.id), "accion": move},
            request_id=request_id,
            body=sent if seen is None else {**sent, "cambio": seen},
        )
        if status == 200 and isinstance(body, dict):
            return moved_of(body)
        error = body.get("error") if isinstance(body, dict) else None
        if status == 409 and error == stock.NOT_HELD:
            raise NotHeld(order.id)
        if status == 409 and error == stock.CHANGED:
            raise ReservationChanged(order.id)
        if status == 409 and isinstance(body, dict):
            raise Conflict(str(error), str(body.get("message")), details=body.get("details"))
        raise _refused(status)

    def take_part(
        self,
        pedido_id: int,
        envio_id: int,
        bodega_id: int,
        parts: dict[int, int],
        request_id: str | None = None,
    ) -> tuple[bool, bool]:
        """A shipment's units (by line) leave its warehouse (docs/api.md#shipments-of-parts),
        keyed by the shipment on the inventory's side, so asking again takes nothing more:
        (applied, whole), `whole` when the order's own take-out had taken every unit. A
        refusal is the inventory's Conflict (INSUFFICIENT_STOCK); units no longer held
        (the order cancelled) NotHeld; InventoryUnavailable when it cannot be asked."""
        sent = {
            "bodegaId": bodega_id,
            "lineas": [
                {"linea": linea, "cantidad": units} for linea, units in sorted(parts.items())
            ],
        }
        status, body = self._internal(
            "POST",
            stock.PART_ROUTE,
            {"pedidoId": str(pedido_id), "envioId": str(envio_id)},
            request_id=request_id,
            body=sent,
        )
        if status == 200 and isinstance(body, dict):
            return bool(body.get("aplicada")), bool(body.get("conPedido"))
        error = body.get("error") if isinstance(body, dict) else None
        if status == 409 and error == stock.NOT_HELD:
            raise NotHeld(pedido_id)
        if status == 409 and isinstance(body, dict):
            raise Conflict(str(error), str(body.get("message")), details=body.get("details"))
        raise _refused(status)

    def reservation(self, pedido_id: int) -> dict | None:
        """Inventory.reservation."""
        status, body = self._internal("GET", stock.RESERVATION_ROUTE, {"pedidoId": str(pedido_id)})
        if status == 404:
            return None
        if status != 200 or not isinstance(body, dict):
            raise _refused(status)
        return body

    def holding(self, after: int = 0) -> tuple[list[dict], int | None]:
        """Inventory.holding."""
        status, body = self._internal("GET", stock.HOLDING_ROUTE, {}, query={"after": str(after)})
        if status != 200 or not isinstance(body, dict):
            raise _refused(status)
        return list(body.get("reservas") or []), body.get("siguiente")

    def balance(self, shard: int, after: int, settled_before: str) -> tuple[list[dict], int | None]:
        """Inventory.balance."""
        asked = {"shard": shard, "despues": after, "asentadoAntes": settled_before}
        status, body = self._internal("POST", stock.BALANCE_ROUTE, {}, body=asked)
        if status != 200 or not isinstance(body, dict):
            raise _refused(status)
        return list(body.get("hallazgos") or []), body.get("siguiente")

    def restock(self, devolucion_id: int, lines: list[dict], request_id: str | None = None) -> bool:
        """Inventory.restock."""
        status, body = self._internal(
            "POST",
            stock.RESTOCK_ROUTE,
            {"devolucionId": str(devolucion_id)},
            request_id=request_id,
            body={"lineas": lines},
        )
        if status == 200 and isinstance(body, dict):
            return bool(body.get("aplicada"))
        # A 404 of another code is a route that is not there: configuration, not the return.
        gone = status == 404 and isinstance(body, dict) and body.get("error") == PRODUCT_GONE
        if (status in (400, 409) or gone) and isinstance(body, dict):
            kind = {400: Invalid, 404: NotFound, 409: Conflict}[status]
            raise kind(
                str(body.get("error")), str(body.get("message")), details=body.get("details")
            )
        raise _refused(status)

    def _internal(
        self,
        method: str,
        route: str,
        parameters: dict[str, str],
        *,
        request_id: str | None = None,
        query: dict[str, str] | None = None,
        body: dict | None = None,
        unavailable: bool = True,
    ) -> tuple[int, Any]:
        """One of the inventory's internal routes, asked as this service; its JSON body.
        A failed call is InventoryUnavailable (or, not `unavailable`, the CallFailed)."""
        caller = OnBehalf(
            service_caller(self._service), token=None, gateway_url="", request_id=request_id
        )
        try:
            status, raw = self._call(
                self._moves,
                lambda routes: routes.call(
                    method, route, parameters, caller, query=query, body=body
                ),
            )
        except CallFailed:
            if not unavailable:
                raise
            raise InventoryUnavailable(RETRY_AFTER_SECONDS) from None
        return status, _json(raw)


def moved_of(body: dict) -> Moved:
    """A move's answer as the inventory sends it (inventory.service.move_stock)."""
    held = {
        int(line["linea"]): [(int(a["bodegaId"]), int(a["cantidad"])) for a in line["asignaciones"]]
        for line in body.get("lineas") or []
    }
    return Moved(bool(body.get("aplicada")), held)


def _json(raw: bytes) -> Any:
    """The inventory's JSON answer, its numbers exact (a price stays `2.50`)."""
    try:
        return jsonio.loads(raw, max_depth=None) if raw else None
    except (ValueError, jsonio.InvalidJson):
        return None


def _refused(status: int) -> Unavailable:
    """An answer a move never gets from a working inventory (a 403, a 404 route): the
    functions' configuration is at fault, not the caller's request."""
    return Unavailable(
        "INVENTORY_UNAVAILABLE",
        f"The inventory refused the stock move (HTTP {status}); retry later",
        retry_after_seconds=RETRY_AFTER_SECONDS,
    )
