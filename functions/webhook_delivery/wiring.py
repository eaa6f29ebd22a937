"""What the delivery function is made of: the delivery queue's event source mapping hands
it a batch of messages; each is one attempt, side by side (a receiver that hangs holds
its own attempt, not the batch's others), and the batch's answer names the messages to
try again (ReportBatchItemFailures), each set to come back when its next try is due."""

import contextvars
import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from common.identity.user_ids import UserIds
from common.platform import aws, metrics, restore
from common.platform.clock import utcnow
from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from common.platform.settings import Cloud, Webhooks
from common.webhooks.messages import DeliveryMessage, decoded, encoded
from common.webhooks.queue import DeliveryQueue
from common.webhooks.records import DELIVERED
from common.webhooks.repository import Attempts, Deliveries, WebhookRepository
from common.webhooks.vault import Vault
from webhook_delivery import sender, service
from webhook_delivery.rules import Decision, Next

SERVICE = "webhook-delivery"
FUNCTION = "WebhookDeliveryFunction"
# The event source mapping's batch size (infra/template.yaml): one attempt each at once.
PARALLEL = 10


class DeliveryHandler(FunctionHandler):
    def __init__(self, cloud: Cloud, webhooks: Webhooks):
        logger = get_logger(SERVICE)
        with aws.acting_as(FUNCTION):
            self.stores = service.Stores(
                endpoints=WebhookRepository(cloud),
                deliveries=Deliveries(cloud),
                attempts=Attempts(cloud),
                erased=UserIds.for_function(cloud).erased,
            )
            self.queue = DeliveryQueue(cloud, webhooks)
            vault = Vault(cloud, webhooks)
        self._schedule = webhooks.webhook_retry_seconds
        self._send = functools.partial(
            service.signed_attempt,
            local=webhooks.webhook_local_targets,
            deliver=sender.deliver,
            vault=vault,
        )
        self._pool = ThreadPoolExecutor(PARALLEL, thread_name_prefix="delivery")
        restore.on_restore(self._new_pool)
        super().__init__(FUNCTION, logger, self.deliver_batch)

    def _new_pool(self) -> None:
        """A restored environment (common.platform.restore) has none of the snapshot's threads: a
        pool that had started some would wait on them for ever."""
        self._pool = ThreadPoolExecutor(PARALLEL, thread_name_prefix="delivery")

    def deliver_batch(self, event: dict, context: Any) -> dict:
        records = event.get("Records") or []
        # Each in a copy of this invocation's context (made here, not in the worker):
        # its calls are this function's (common.platform.aws.acting_as).
        done = [
            future.result()
            for future in [
                self._pool.submit(contextvars.copy_context().run, self._consumed, record)
                for record in records
            ]
        ]
        return {
            "batchItemFailures": [
                {"itemIdentifier": record["messageId"]}
                for record, consumed in zip(records, done, strict=True)
                if not consumed
            ]
        }

    def _consumed(self, record: dict) -> bool:
        """One message: True when it is done with (delete it: delivered, given up and
        dead-lettered, or nothing to do), False when it must come back (its next try)."""
        try:
            message = decoded(record["body"])
        except ValueError as exc:
            self.logger.error("not a delivery message", extra={"error": str(exc)})
            self.queue.come_back_in(record["receiptHandle"], 0)  # on to the dead letters
            return False
        attempt = int(record.get("attributes", {}).get("ApproximateReceiveCount", 1))
        try:
            decision = service.deliver(
                message, attempt, self.stores, self._send, self._schedule, utcnow()
            )
        except Exception:
            # Ours, not the receiver's: the message comes back after the queue's
            # visibility timeout, as Lambda leaves it, and its next receive records this
            # attempt as one whose worker stopped (service.deliver).
            self.logger.exception("delivery failed", extra=_about(message, attempt))
            return False
        self._account(message, attempt, decision)
        if decision.next is Next.DONE:
            return True
        if decision.next is Next.DEAD:
            return self._dead_lettered(record, message, attempt)
        self.queue.come_back_in(record["receiptHandle"], decision.delay)
        return False

    def _dead_lettered(self, record: dict, message: DeliveryMessage, attempt: int) -> bool:
        """A delivery given up (recorded so): its message onto the dead-letter queue, and
        done with here. If the dead-letter queue cannot take it, it comes back at once
        and its next receive finds the delivery over (the queue's own redrive may yet
        move it)."""
        try:
            self.queue.dead_letter(encoded(service.as_kept(message, self.stores)))
        except Exception:
            self.logger.exception("dead letter not queued", extra=_about(message, attempt))
            self.queue.come_back_in(record["receiptHandle"], 0)
            return False
        return True

    def _account(self, message: DeliveryMessage, attempt: int, decision: Decision) -> None:
        """The attempt's one log line and its metrics (none for a message with nothing
        left to do: a duplicate, a replaced send, an endpoint gone or off)."""
        about = _about(message, attempt)
        if decision is service.NOTHING:
            self.logger.info("webhook delivery not needed", extra=about)
            return
        if decision is service.GIVEN_UP:
            self.logger.info("webhook delivery given up", extra=about)
            metrics.count(metrics.WEBHOOKS_DEAD_LETTERED, service=SERVICE)
            return
        self.logger.info(
            "webhook delivery",
            extra={**about, "estado": decision.estado, "next": decision.next.value},
        )
        if decision.estado == DELIVERED:
            metrics.count(metrics.WEBHOOKS_DELIVERED, service=SERVICE)
            return
        metrics.count(metrics.WEBHOOK_ATTEMPTS_FAILED, service=SERVICE)
        if decision.next is Next.DEAD:
            metrics.count(metrics.WEBHOOKS_DEAD_LETTERED, service=SERVICE)


def _about(message: DeliveryMessage, attempt: int) -> dict:
    return {
        "webhookId": message.webhook_id,
        "eventId": message.event_id,
        "type": message.type,
        "attempt": attempt,
    }


def create(cloud: Cloud, webhooks: Webhooks) -> DeliveryHandler:
    return DeliveryHandler(cloud, webhooks)


# No `rehearse`: nobody waits on this function's first run (a queue's batch), so its init
# stays short and that run opens its own connections (common.platform.lambda_init.start).
