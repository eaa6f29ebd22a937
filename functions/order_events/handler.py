"""PedidoAprobadoEvent listener (SAM Handler: order_events.handler.handler).

Invoked asynchronously by the orders function. It logs the payload as one JSON line
and, when NOTIFICATION_SERVICE_URL is set, forwards it to the notification service.
"""

import requests

from common import config, jsonio
from common.events import ORDER_APPROVED
from common.logs import get_logger

FORWARD_TIMEOUT_SECONDS = 5
logger = get_logger("order-events")


def handler(event, context):
    logger.info(ORDER_APPROVED, extra={"event": ORDER_APPROVED, "payload": event})
    base_url = config.notification_service_url()
    if base_url is None:
        return {"forwarded": False}
    try:
        response = requests.post(f"{base_url}/notificaciones", data=jsonio.dumps(event),
                                 headers={"Content-Type": "application/json"},
                                 timeout=FORWARD_TIMEOUT_SECONDS)
        response.raise_for_status()
    except requests.RequestException:
        logger.exception(f"forwarding {ORDER_APPROVED} failed", extra={"payload": event})
        # Raising lets Lambda retry the event and then hand it to the on-failure
        # destination, so a notification outage loses nothing. The order is already saved.
        raise
    return {"forwarded": True}
