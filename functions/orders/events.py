"""Publishing PedidoAprobadoEvent: an asynchronous invoke of the order-events function.

InvocationType=Event returns as soon as Lambda has queued the event, so the order's
HTTP response never waits for the listener. Locally AWS_ENDPOINT_URL_LAMBDA points at
the local stack's invoke endpoint, which runs the same handler in the background.
"""

import os
from functools import cache

import boto3
from botocore.config import Config

from common import config, jsonio
from common.logs import get_logger
from orders.rules import EVENT_NAME

logger = get_logger("orders")
# Publishing must stay cheap for the request that does it: fail fast, never retry inline.
_CLIENT_CONFIG = Config(connect_timeout=1, read_timeout=2, retries={"total_max_attempts": 1})


@cache
def _lambda_client(endpoint: str | None):
    return boto3.client("lambda", region_name=config.aws_region(), endpoint_url=endpoint,
                        config=_CLIENT_CONFIG)


def publish(payload: dict) -> bool:
    """Queue the event; a failure is logged and reported, never raised to the caller."""
    try:
        client = _lambda_client(os.environ.get("AWS_ENDPOINT_URL_LAMBDA"))
        client.invoke(FunctionName=config.order_events_function(), InvocationType="Event",
                      Payload=jsonio.dumps(payload).encode("utf-8"))
    except Exception:
        logger.exception(f"could not publish {EVENT_NAME}", extra={"payload": payload})
        return False
    return True
