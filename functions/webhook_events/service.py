"""The events of a batch of changes, sent on to every active endpoint subscribed to each:
one delivery stored per endpoint and event, with the event's body, and a message naming
it on the delivery queue. The endpoints are read only when the batch made an event (most
writes make none: an order taken off its outbox)."""

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from common.platform.personal import stripped_event
from common.webhooks.messages import DeliveryMessage
from common.webhooks.records import Delivery, Subscription
from webhook_events.changes import Change, events_of


class Subscriptions(Protocol):
    def subscriptions(self) -> list[Subscription]: ...


class Deliveries(Protocol):
    def open(self, delivery: Delivery, now: datetime) -> Delivery: ...


class Queue(Protocol):
    def send(self, messages: Sequence[DeliveryMessage]) -> None: ...


def publish(
    changes: Sequence[Change],
    endpoints: Subscriptions,
    deliveries: Deliveries,
    queue: Queue,
    now: datetime,
    erased: Callable[[int | None], bool],
) -> tuple[int, int]:
    """(events made, messages queued). Raises when the queue does not take them all: the
    batch is then retried, and its events keep their ids (a delivery stored already is
    kept as it is: common.webhooks.repository.Deliveries.open). An event about a person
    erased since it was made is stored without their data (common.identity.user_ids)."""
    events = [(change.at, event) for change in changes for event in events_of(change)]
    if not events:
        return 0, 0
    subscribed = endpoints.subscriptions()
    gone = {user for user in {event.user_id for _, event in events} if erased(user)}
    messages = []
    for at, event in events:
        body = stripped_event(event.body) if event.user_id in gone else event.body
        for endpoint in subscribed:
            if endpoint.receives(event.type, at):
                message = DeliveryMessage(
                    webhook_id=endpoint.id,
                    event_id=event.id,
                    type=event.type,
                    user_id=event.user_id,
                )
                deliveries.open(message.delivery(body), now)
                messages.append(message)
    queue.send(messages)
    return len(events), len(messages)
