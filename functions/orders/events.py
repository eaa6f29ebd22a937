"""Publishing PedidoAprobadoEvent: an asynchronous invoke of the order-events function.

InvocationType=Event returns as soon as Lambda has queued the event, so the order's
HTTP response never waits for the listener. Locally AWS_ENDPOINT_URL_LAMBDA points at
the local stack's invoke endpoint, which runs the same handler in the background.
"""

import os
import threading

import boto3
from botocore.config import Config

from common import config, jsonio
from common.events import ORDER_APPROVED
from common.logs import get_logger

logger = get_logger("orders")
# Publishing must stay cheap for the request that does it: fail fast, never retry inline.
_CLIENT_CONFIG = Config(connect_timeout=1, read_timeout=2, retries={"total_max_attempts": 1})


_clients: dict = {}
_clients_lock = threading.Lock()


def _lambda_client(endpoint: str | None):
    """One client per endpoint (tests point it elsewhere), built under a lock: creating
    boto3 clients concurrently from one session is not thread-safe."""
    with _clients_lock:
        if endpoint not in _clients:
            _clients[endpoint] = boto3.session.Session().client(
                "lambda", region_name=config.aws_region(), endpoint_url=endpoint,
                config=_CLIENT_CONFIG)
        return _clients[endpoint]


def forget_clients() -> None:
    """Drop cached clients (tests that swap the AWS endpoint or start moto)."""
    with _clients_lock:
        _clients.clear()


def publish(payload: dict) -> bool:
    """Queue the event; a failure is logged and reported, never raised to the caller."""
    try:
        client = _lambda_client(os.environ.get("AWS_ENDPOINT_URL_LAMBDA"))
        client.invoke(FunctionName=config.order_events_function(), InvocationType="Event",
                      Payload=jsonio.dumps(payload).encode("utf-8"))
    except Exception:
        logger.exception(f"could not publish {ORDER_APPROVED}", extra={"payload": payload})
        return False
    return True
