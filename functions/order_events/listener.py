"""The listener of the order-placed event (PedidoAprobadoEvent on the wire): one log
line per event, forwarded when configured.

Invoked asynchronously by the orders function. When NOTIFICATION_SERVICE_URL is set it
also POSTs the payload to the notification service
(docs/api.md#the-order-event-pedidoaprobadoevent). Lambda
may deliver an event twice (its retries, or a republish of a pending event): each order's
event is handled at most once, keyed on its pedidoId
(docs/api.md#retries-without-duplicates-idempotency-key).
"""

from collections.abc import Callable
from typing import Any

import urllib3

from common.http.fingerprints import fingerprint
from common.http.idempotency import Once
from common.orders.events import ORDER_PLACED
from common.platform import jsonio, metrics
from common.platform.logs import Logger
from common.platform.settings import Cloud, Idempotency, Peers

SERVICE = "order-events"
FORWARD_TIMEOUT_SECONDS = 5

Forward = Callable[[dict], None]


class NotForwarded(Exception):
    """The notification service did not take the event."""


def forward_to(base_url: str) -> Forward:
    # urllib3 is already loaded by botocore; one pool, reused across events.
    http = urllib3.PoolManager(
        retries=False, timeout=urllib3.Timeout(total=FORWARD_TIMEOUT_SECONDS)
    )

    def forward(event: dict) -> None:
        try:
            response = http.request(
                "POST",
                f"{base_url}/notificaciones",
                body=jsonio.dumps(event).encode("utf-8"),
                headers={"Content-Type": "application/json"},
            )
        except urllib3.exceptions.HTTPError as exc:
            raise NotForwarded(str(exc)) from exc
        if response.status >= 300:
            raise NotForwarded(f"the notification service answered {response.status}")

    return forward


def handle_once(event: dict, forward: Forward | None, logger: Logger) -> dict:
    fields = {"event": ORDER_PLACED, "payload": event}
    if forward is not None:
        try:
            forward(event)
        except Exception:
            logger.exception(f"{ORDER_PLACED} not forwarded", extra=fields)
            metrics.count(metrics.EVENTS_FAILED, service=SERVICE)
            # Raising lets Lambda retry the event and then hand it to the on-failure
            # destination, so a notification outage loses nothing. The order is saved.
            raise
        metrics.count(metrics.EVENTS_FORWARDED, service=SERVICE)
    logger.info(ORDER_PLACED, extra={**fields, "forwarded": forward is not None})
    return {"forwarded": forward is not None}


def handler_for(
    cloud: Cloud, idempotency: Idempotency, peers: Peers, logger: Logger
) -> Callable[[dict, Any], dict]:
    """What the function does with an event: forwards it as the settings say, once per
    order."""
    url = peers.notification_service_url
    forward = forward_to(url) if url else None
    once = Once(cloud, idempotency, SERVICE, SERVICE)

    def handle(event: dict, context: Any) -> dict:
        outcome = once.run(
            {"pedidoId": event.get("pedidoId")},
            fingerprint(event),
            lambda: handle_once(event, forward, logger),
            context,
        )
        if outcome.replayed:
            logger.info(
                f"{ORDER_PLACED} already handled",
                extra={"event": ORDER_PLACED, "payload": event},
            )
        return outcome.result

    return handle
