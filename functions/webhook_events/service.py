"""The events of a batch of changes, sent on to every active endpoint subscribed to each:
one message per endpoint and event on the delivery queue. The endpoints are read only
when the batch made an event (most writes make none: an order taken off its outbox)."""

from collections.abc import Sequence
from typing import Protocol

from common.webhook_messages import DeliveryMessage
from common.webhook_records import Subscription
from webhook_events.changes import Change, events_of


class Subscriptions(Protocol):
    def subscriptions(self) -> list[Subscription]: ...


class Queue(Protocol):
    def send(self, messages: Sequence[DeliveryMessage]) -> None: ...


def publish(changes: Sequence[Change], endpoints: Subscriptions, queue: Queue) -> tuple[int, int]:
    """(events made, messages queued). Raises when the queue does not take them all: the
    batch is then retried, and its events keep their ids."""
    events = [(change.at, event) for change in changes for event in events_of(change)]
    if not events:
        return 0, 0
    subscribed = endpoints.subscriptions()
    messages = [
        DeliveryMessage(
            webhook_id=endpoint.id,
            event_id=event.id,
            type=event.type,
            body=event.body,
            user_id=event.user_id,
        )
        for at, event in events
        for endpoint in subscribed
        if endpoint.receives(event.type, at)
    ]
    queue.send(messages)
    return len(events), len(messages)
