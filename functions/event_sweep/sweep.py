"""The event sweep: what its scheduled function (event_sweep.lambda_app) runs to publish
the events orders left pending. It reads the orders' outbox and publishes as the orders
function does, through what the layer publishes of both (common.orders.repository,
common.orders.outbox), and needs the Lambda client; it loads neither the HTTP edge nor
the stock check."""

from datetime import timedelta
from typing import Any

from common.orders.outbox import SERVICE, LambdaPublisher, republish_pending
from common.orders.repository import OrderReader
from common.platform import metrics
from common.platform.clock import utcnow
from common.platform.logs import Logger
from common.platform.settings import Cloud, Peers

# Orders read per batch; orders younger than the grace are left to their own request;
# no batch is started with less than the reserve left of the invocation.
SWEEP_BATCH = 100
SWEEP_GRACE = timedelta(minutes=1)
SWEEP_RESERVE_MS = 15_000


class Sweep:
    """Publishes the events orders left pending, batch after batch, until none is left,
    a publish fails, or the invocation runs short of time."""

    def __init__(self, cloud: Cloud, peers: Peers, logger: Logger, grace: timedelta = SWEEP_GRACE):
        self._orders = OrderReader(cloud)
        self._events = LambdaPublisher(cloud, peers, logger)
        self._logger, self._grace = logger, grace

    def __call__(self, context: Any = None) -> dict:
        published, swept = 0, None
        while swept is None or (
            swept.more
            and not swept.failed
            and (context is None or context.get_remaining_time_in_millis() > SWEEP_RESERVE_MS)
        ):
            swept = republish_pending(
                self._orders, self._events, SWEEP_BATCH, created_before=utcnow() - self._grace
            )
            published += swept.published
        if published:
            metrics.count(metrics.EVENTS_REPUBLISHED, published, service=SERVICE)
        self._logger.info(
            "pending events swept",
            extra={
                "republished": published,
                "publish_failed": swept.failed,
                "more_pending": swept.more,
            },
        )
        return {"republished": published, "morePending": swept.more}
