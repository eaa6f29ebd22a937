"""What the events function is made of: the streams of the orders, shipments and products
tables hand it their records (its event source mappings); it reads them with those
services' own models (repository.Images) and queues their events for the subscribed
endpoints."""

from datetime import UTC, datetime
from typing import Any

from common.identity.user_ids import UserIds
from common.platform import aws, metrics
from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from common.platform.settings import Cloud, Webhooks
from common.webhooks.queue import DeliveryQueue
from common.webhooks.repository import Deliveries, WebhookRepository
from webhook_events import service
from webhook_events.repository import Images

SERVICE = "webhook-events"
FUNCTION = "WebhookEventsFunction"


class EventsHandler(FunctionHandler):
    def __init__(self, cloud: Cloud, webhooks: Webhooks):
        logger = get_logger(SERVICE)
        with aws.acting_as(FUNCTION):
            self.images = Images(cloud)
            self.endpoints = WebhookRepository(cloud)
            self.deliveries = Deliveries(cloud)
            self.erased = UserIds.for_function(cloud).erased
            self.queue = DeliveryQueue(cloud, webhooks)
        super().__init__(FUNCTION, logger, self.changes)

    def changes(self, event: dict, context: Any) -> dict:
        records = event.get("Records") or []
        changes = [change for record in records if (change := self.images.change_of(record))]
        events, queued = service.publish(
            changes, self.endpoints, self.deliveries, self.queue, datetime.now(UTC), self.erased
        )
        # A line only when something was queued: with no endpoint subscribed, every write
        # of the platform would add one to the log.
        if queued:
            metrics.count(metrics.WEBHOOK_EVENTS_QUEUED, queued, service=SERVICE)
            self.logger.info(
                "webhook events queued",
                extra={"records": len(records), "events": events, "queued": queued},
            )
        return {"events": events, "queued": queued}


def create(cloud: Cloud, webhooks: Webhooks) -> EventsHandler:
    return EventsHandler(cloud, webhooks)


# No `rehearse`: nobody waits on this function's first run (a stream's batch), so its init
# stays short and that run opens its own connections (common.platform.lambda_init.start).
