"""The orders' outbox (docs/api.md#the-order-event-pedidoaprobadoevent): the event each
new order publishes, how it is published (an asynchronous invoke of the order-events
function), and the sweep's rule for those left pending. The orders function publishes
each new order's; the event sweep, another function, those left pending: both read it
here, neither imports the other.

InvocationType=Event returns as soon as Lambda has queued the event, so the order's
HTTP response never waits for the listener. Locally AWS_ENDPOINT_URL_LAMBDA points at
the local stack's invoke endpoint, which runs the same handler in the background.
"""

import time
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from common.orders.events import ORDER_PLACED
from common.orders.records import Order
from common.platform import aws, jsonio, metrics
from common.platform.clock import to_iso
from common.platform.logs import Logger
from common.platform.settings import Cloud, Peers
from common.platform.tracing import tracer

# Whose events these are: the dimension of their metrics (and of the orders' own),
# whichever function publishes them; the template's alarms read the orders service's.
SERVICE = "orders"

# Tries per publish, the pause before each retry, and no new try once this long has gone
# by: a publish that fails at once (refused, throttled) costs the order's request about a
# third of a second more; one that hangs, one read timeout (STOCK_CHECK_TIMEOUT_SECONDS)
# and then no more. The order was saved with its event pending: the sweep takes over.
ATTEMPTS = 3
BACKOFF_SECONDS = (0.05, 0.25)
BUDGET_SECONDS = 1.0


def approved_event(order: Order) -> dict:
    """The PedidoAprobadoEvent payload (docs/api.md#the-order-event-pedidoaprobadoevent)."""
    return {
        "pedidoId": order.id,
        "userEmail": order.user_email,
        "total": order.total,
        "tipoPedido": order.tipo_pedido,
    }


class Publisher(Protocol):
    def publish(self, payload: dict) -> bool:
        """Queue the event; False when it could not be (never raises)."""


class Pending(Protocol):
    """The outbox as stored (common.orders.repository.OrderReader, or a fake in tests)."""

    def pending_events(self, limit: int) -> list[Order]: ...
    def event_published(self, order_id: int) -> None: ...


class Swept(NamedTuple):
    published: int
    failed: bool  # a publish failed: the rest waits for the next run
    more: bool  # the batch was full: more may be pending


def republish_pending(
    orders: Pending, events: Publisher, limit: int, created_before: datetime
) -> Swept:
    """Publish the events left pending, oldest first, at most `limit`, of orders created
    before `created_before` (a younger one's own request may still be publishing it).
    The listener handles an event once per order, so one published twice changes
    nothing."""
    pending = orders.pending_events(limit)
    cutoff = to_iso(created_before)
    for published, order in enumerate(pending):
        if order.creado_en >= cutoff:
            return Swept(published, failed=False, more=False)
        if not events.publish(approved_event(order)):
            return Swept(published, failed=True, more=True)
        orders.event_published(order.id)
    return Swept(len(pending), failed=False, more=len(pending) == limit)


class LambdaPublisher:
    def __init__(self, cloud: Cloud, peers: Peers, logger: Logger, client: Any = None):
        self._function = peers.order_events_function
        self._logger = logger
        # The process's client, built at init; it never retries inline itself.
        self._lambda = client or aws.lambda_client(cloud, peers)

    @tracer.capture_method(capture_response=False)
    def publish(self, payload: dict) -> bool:
        """Queue the event, trying up to ATTEMPTS times within BUDGET_SECONDS. A failure
        never fails the order, which is already saved: it is logged, as a line of its own
        beside the request's, with the same correlation id, and counted; False leaves the
        event pending for the sweep."""
        data = jsonio.dumps(payload).encode("utf-8")
        started = time.monotonic()
        for attempt in range(ATTEMPTS):
            try:
                self._lambda.invoke(
                    FunctionName=self._function, InvocationType="Event", Payload=data
                )
                return True
            except Exception:
                if attempt + 1 < ATTEMPTS and time.monotonic() - started < BUDGET_SECONDS:
                    time.sleep(BACKOFF_SECONDS[attempt])
                    continue
                self._logger.exception(
                    f"{ORDER_PLACED} not published",
                    extra={"payload": payload, "attempts": attempt + 1},
                )
                break
        metrics.count(metrics.EVENTS_NOT_PUBLISHED, service=SERVICE)
        return False
