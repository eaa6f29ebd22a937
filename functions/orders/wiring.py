"""Which implementations the orders routes get: DynamoDB, the stock check through this
process's breaker (an invoke of the inventory function on AWS, HTTP when given a URL),
and the event as a Lambda async invoke."""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from chalice import Blueprint

from common import metrics
from common.clock import utcnow
from common.http import CreatedOnce, Lists, PlatformApp
from common.idempotency import Once
from common.logs import get_logger
from common.settings import Settings
from orders import routes, service
from orders.events import LambdaPublisher
from orders.outcomes import SERVICE, OrderMetrics
from orders.repository import OrderRepository
from orders.stock_client import StockChecker

# Where this function keeps its Idempotency-Key records (IAM allows it these only).
CREATE_SCOPE = "POST /api/pedidos"
# The sweep (every 5 minutes): orders read per batch; orders younger than the grace
# are left to their own request; it stops taking batches with less than the reserve
# left of its invocation.
SWEEP_BATCH = 100
SWEEP_GRACE = timedelta(minutes=1)
SWEEP_RESERVE_MS = 15_000


def routes_for(settings: Settings, lambda_client=None) -> Blueprint:
    """`lambda_client`: another Lambda client than the process's own (a recording one)."""
    return routes.blueprint(OrderRepository(settings),
                            StockChecker.from_settings(settings, lambda_client),
                            LambdaPublisher(settings, get_logger("orders"), lambda_client),
                            OrderMetrics(), Lists.from_settings(settings),
                            CreatedOnce(Once(settings, CREATE_SCOPE, "orders")))


def rehearse(app: PlatformApp, settings: Settings, lambda_client=None) -> None:
    """At init: the list's first page of one, through the whole request path; and
    a DryRun invoke of the order-events function, which checks the permission and runs
    nothing, so that the Lambda connection that publishing and the stock check share
    is open."""
    publisher = LambdaPublisher(settings, app.logger, lambda_client)
    with ThreadPoolExecutor(max_workers=1) as beside:
        # Both mostly wait on the network (TCP and TLS on AWS): they wait together.
        dry_run = beside.submit(publisher.rehearse)
        app.rehearse("GET", "/api/pedidos", query={"limit": "1"})
        dry_run.result()


def sweep_for(settings: Settings, logger,
              grace: timedelta = SWEEP_GRACE) -> Callable[[object], dict]:
    """The event sweep: publishes the events orders left pending, batch after batch,
    until none is left, a publish fails, or the invocation runs short of time."""
    orders, events = OrderRepository(settings), LambdaPublisher(settings, logger)

    def sweep(context=None) -> dict:
        published, swept = 0, None
        while swept is None or (swept.more and not swept.failed and (
                context is None or context.get_remaining_time_in_millis() > SWEEP_RESERVE_MS)):
            swept = service.republish_pending(orders, events, SWEEP_BATCH,
                                              created_before=utcnow() - grace)
            published += swept.published
        if published:
            metrics.count(metrics.EVENTS_REPUBLISHED, published, service=SERVICE)
        logger.info("pending events swept", extra={
            "republished": published, "publish_failed": swept.failed,
            "more_pending": swept.more})
        return {"republished": published, "morePending": swept.more}

    return sweep
