"""The delivery queue (SQS): where each event waits for its endpoint, off every request's
path. The events function and a re-send put messages on it; the delivery function
consumes it (its event source mapping), sets when a failed one comes back, and puts one
given up on the dead-letter queue."""

from collections.abc import Sequence
from typing import Any

from common.platform import aws
from common.platform.settings import Cloud, Webhooks
from common.webhooks.messages import DeliveryMessage, encoded

# SendMessageBatch's most entries per call.
BATCH = 10


class QueueRefused(Exception):
    """The queue did not take every message (the caller fails, and its source retries)."""


class DeliveryQueue:
    def __init__(self, cloud: Cloud, webhooks: Webhooks, client: Any = None):
        # Built at init, as the acting function's (common.platform.aws).
        self._sqs = client or aws.sqs(cloud)
        self._url = webhooks.webhook_queue
        self._dead_url = webhooks.webhook_dead_letter_queue

    def send(self, messages: Sequence[DeliveryMessage]) -> None:
        """Every message, in batches; QueueRefused if any one was not taken."""
        for start in range(0, len(messages), BATCH):
            batch = messages[start : start + BATCH]
            answer = self._sqs.send_message_batch(
                QueueUrl=self._url,
                Entries=[
                    {"Id": str(number), "MessageBody": encoded(message)}
                    for number, message in enumerate(batch)
                ],
            )
            if answer.get("Failed"):
                raise QueueRefused(f"the delivery queue refused {answer['Failed']}")

    def dead_letter(self, body: str) -> None:
        """A message given up on, onto the dead-letter queue as it was (the delivery
        function then deletes it from this one)."""
        self._sqs.send_message(QueueUrl=self._dead_url, MessageBody=body)

    def come_back_in(self, receipt_handle: str, seconds: int) -> None:
        """A received message becomes visible again `seconds` from now (its next try)."""
        self._sqs.change_message_visibility(
            QueueUrl=self._url, ReceiptHandle=receipt_handle, VisibilityTimeout=seconds
        )
