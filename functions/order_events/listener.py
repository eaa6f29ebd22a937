"""The PedidoAprobadoEvent listener: one log line per event, forwarded when configured.

Invoked asynchronously by the orders function. When NOTIFICATION_SERVICE_URL is set it
also POSTs the payload to the notification service (interface §6, decisions.md).
"""

from collections.abc import Callable

import requests

from common import jsonio
from common.events import ORDER_APPROVED
from common.settings import Settings

SERVICE = "order-events"
FORWARD_TIMEOUT_SECONDS = 5

Forward = Callable[[dict], None]


def forward_to(base_url: str) -> Forward:
    def forward(event: dict) -> None:
        response = requests.post(f"{base_url}/notificaciones", data=jsonio.dumps(event),
                                 headers={"Content-Type": "application/json"},
                                 timeout=FORWARD_TIMEOUT_SECONDS)
        response.raise_for_status()

    return forward


def handle(event: dict, forward: Forward | None, logger) -> dict:
    fields = {"event": ORDER_APPROVED, "payload": event}
    if forward is not None:
        try:
            forward(event)
        except Exception:
            logger.exception(f"{ORDER_APPROVED} not forwarded", extra=fields)
            # Raising lets Lambda retry the event and then hand it to the on-failure
            # destination, so a notification outage loses nothing. The order is saved.
            raise
    logger.info(ORDER_APPROVED, extra={**fields, "forwarded": forward is not None})
    return {"forwarded": forward is not None}


def handler_for(settings: Settings, logger) -> Callable:
    """The Lambda handler, forwarding as the settings say."""
    url = settings.notification_service_url
    forward = forward_to(url) if url else None

    @logger.inject_lambda_context(clear_state=True)
    def handler(event, context):
        return handle(event, forward, logger)

    return handler
