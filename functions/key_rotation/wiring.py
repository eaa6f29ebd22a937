"""What the key-rotation function is made of: one rotation step per invocation, with the
process's Secrets Manager client."""

from typing import Any

from common.platform import aws
from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from common.platform.settings import Cloud
from key_rotation.rotation import rotate

SERVICE = "key-rotation"
FUNCTION = "KeyRotationFunction"


def create(cloud: Cloud) -> FunctionHandler:
    logger = get_logger(SERVICE)
    with aws.acting_as(FUNCTION):
        client = aws.secretsmanager(cloud)

    def handle(event: dict, context: Any) -> None:
        rotate(client, event["SecretId"], event["ClientRequestToken"], event["Step"])
        logger.info(
            "key rotation step done", extra={"secret": event["SecretId"], "step": event["Step"]}
        )

    return FunctionHandler(FUNCTION, logger, handle)


def rehearse(handler: FunctionHandler) -> None:
    """Nothing: it runs once a month per key; a warm-up would cost more than it saves."""
