"""What the order-events function is made of: the listener, forwarding as configured."""

from common.platform import aws
from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from common.platform.settings import Cloud, Idempotency, Peers
from order_events import listener

FUNCTION = "OrderEventsFunction"


def create(cloud: Cloud, idempotency: Idempotency, peers: Peers) -> FunctionHandler:
    logger = get_logger(listener.SERVICE)
    with aws.acting_as(FUNCTION):
        handle = listener.handler_for(cloud, idempotency, peers, logger)
    return FunctionHandler(FUNCTION, logger, handle)


# No `rehearse`: nobody waits on this function's first run (an asynchronous invoke after
# an order is placed), so its init stays short (common.platform.lambda_init.start).
