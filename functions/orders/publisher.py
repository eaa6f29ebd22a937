"""Publishing PedidoAprobadoEvent: an asynchronous invoke of the order-events function.

InvocationType=Event returns as soon as Lambda has queued the event, so the order's
HTTP response never waits for the listener. Locally AWS_ENDPOINT_URL_LAMBDA points at
the local stack's invoke endpoint, which runs the same handler in the background.
"""

import time
from typing import Any

from common import aws, jsonio, metrics
from common.events import ORDER_APPROVED
from common.logs import Logger
from common.settings import Settings
from common.tracing import tracer
from orders.metrics import SERVICE

# Tries per publish, the pause before each retry, and no new try once this long has gone
# by: a publish that fails at once (refused, throttled) costs the order's request about a
# third of a second more; one that hangs, one read timeout (STOCK_CHECK_TIMEOUT_SECONDS)
# and then no more. The order was saved with its event pending: the sweep takes over.
ATTEMPTS = 3
BACKOFF_SECONDS = (0.05, 0.25)
BUDGET_SECONDS = 1.0


class LambdaPublisher:
    def __init__(self, settings: Settings, logger: Logger, client: Any = None):
        self._function = settings.order_events_function
        self._logger = logger
        # The process's client, built at init; it never retries inline itself.
        self._lambda = client or aws.lambda_client(settings)

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
                    f"{ORDER_APPROVED} not published",
                    extra={"payload": payload, "attempts": attempt + 1},
                )
                break
        metrics.count(metrics.EVENTS_NOT_PUBLISHED, service=SERVICE)
        return False
