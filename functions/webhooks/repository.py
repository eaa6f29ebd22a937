"""Webhooks in DynamoDB; the only webhooks module that knows PynamoDB: the endpoints, each
event's delivery to each, and the attempts.

An endpoint's changes after its create (a rotation, a 410 turning it off) are
UpdateItems of the attributes they change, never a put of the whole item read before,
so a rotation and a deactivation at once both stand. A delivery's state moves only
with the send it belongs to (`envio`): a message of a send that a re-send replaced
changes nothing.
"""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from pynamodb.exceptions import DeleteError, PutError, UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from common import storage
from common.clock import to_iso
from common.paging import Page
from common.repository import Repository
from common.settings import Settings
from webhooks.model import ACTIVE, AttemptModel, DeliveryModel, WebhookModel
from webhooks.rules import (
    PENDING,
    Attempt,
    Delivery,
    Endpoint,
    Subscription,
    unknown_webhook,
)

COUNTER = "webhooks"
# Deliveries and attempts are kept this long after their last change (DynamoDB's TTL).
KEPT = timedelta(days=30)


def item_of(endpoint: Endpoint) -> WebhookModel:
    item = storage.listed(
        WebhookModel(
            endpoint.id,
            url=endpoint.url,
            eventos=list(endpoint.eventos),
            activo=endpoint.activo,
            creado_en=endpoint.creado_en,
            secreto=endpoint.secreto,
            secreto_anterior=endpoint.secreto_anterior,
            secreto_anterior_hasta=endpoint.secreto_anterior_hasta,
        )
    )
    item.activo_marca = ACTIVE if endpoint.activo else None
    return item


def endpoint_of(item: WebhookModel) -> Endpoint:
    return Endpoint(
        id=int(item.id),
        url=item.url,
        eventos=tuple(str(name) for name in item.eventos),
        activo=bool(item.activo),
        creado_en=item.creado_en,
        secreto=item.secreto,
        secreto_anterior=item.secreto_anterior,
        secreto_anterior_hasta=item.secreto_anterior_hasta,
    )


class WebhookRepository(Repository):
    def __init__(self, settings: Settings):
        super().__init__(
            settings,
            WebhookModel,
            Endpoint,
            counter=COUNTER,
            unknown=unknown_webhook,
            item_of=item_of,
        )

    def get(self, ident: int) -> Endpoint:
        item = storage.get_item(WebhookModel, self.known(ident))
        if not isinstance(item, WebhookModel):
            raise unknown_webhook(ident)
        return endpoint_of(item)

    def page(self, after: int, limit: int) -> Page:
        ids = self._merged(WebhookModel.by_shard, range(storage.LIST_SHARDS), after, limit)
        found = WebhookModel.batch_get([key.id for key in ids.items], consistent_read=True)
        return Page(sorted(map(endpoint_of, found), key=lambda e: e.id), ids.resume_after)

    def remove(self, ident: int) -> None:
        try:
            WebhookModel(self.known(ident)).delete(condition=WebhookModel.id.exists())
        except DeleteError as exc:
            if storage.condition_failed(exc):
                raise unknown_webhook(ident) from None
            raise

    def rotate(self, endpoint: Endpoint) -> None:
        """Store a rotated endpoint's secrets (rules.rotated), nothing else of it."""
        self._update(
            endpoint.id,
            WebhookModel.secreto.set(endpoint.secreto),
            # A rotated endpoint's (rules.rotated): both are set.
            WebhookModel.secreto_anterior.set(endpoint.secreto_anterior or ""),
            WebhookModel.secreto_anterior_hasta.set(endpoint.secreto_anterior_hasta or ""),
        )

    def deactivate(self, ident: int) -> None:
        """Off the active list: no event is sent to it any more (its endpoint said 410)."""
        self._update(ident, WebhookModel.activo.set(False), WebhookModel.activo_marca.remove())

    def _update(self, ident: int, *actions: Action) -> None:
        try:
            WebhookModel(self.known(ident)).update(
                actions=list(actions), condition=WebhookModel.id.exists()
            )
        except UpdateError as exc:
            if storage.condition_failed(exc):
                raise unknown_webhook(ident) from None
            raise

    def subscriptions(self) -> list[Subscription]:
        """Every active endpoint and what it subscribed to (the sparse index)."""
        return [
            Subscription(
                id=int(item.id),
                eventos=tuple(str(name) for name in item.eventos or ()),
                creado_en=item.creado_en,
            )
            for item in WebhookModel.activos.query(ACTIVE)
        ]


def _expiration(now: datetime) -> int:
    """When DynamoDB's TTL may delete the item (epoch seconds; `now` is UTC's)."""
    return int((now + KEPT).replace(tzinfo=UTC).timestamp())


def _delivery_of(item: DeliveryModel) -> Delivery:
    return Delivery(
        webhook_id=int(item.webhook_id),
        event_id=item.event_id,
        type=item.type,
        body=item.body,
        estado=item.estado,
        envio=int(item.envio),
        intentos=int(item.intentos),
        actualizado_en=item.actualizado_en,
        user_id=int(item.user_id) if item.user_id is not None else None,
    )


class Deliveries:
    """Each event's delivery to each endpoint."""

    def __init__(self, settings: Settings):
        storage.bind(settings, DeliveryModel)

    def get(self, webhook_id: int, event_id: str) -> Delivery | None:
        try:
            item = DeliveryModel.get(webhook_id, event_id, consistent_read=True)
        except DeliveryModel.DoesNotExist:
            return None
        return _delivery_of(item)

    def open(self, delivery: Delivery, now: datetime) -> Delivery:
        """The delivery as stored: this one, if it is the first of its event and
        endpoint, else the one already there."""
        item = DeliveryModel(
            delivery.webhook_id,
            delivery.event_id,
            type=delivery.type,
            body=delivery.body,
            estado=delivery.estado,
            envio=delivery.envio,
            intentos=delivery.intentos,
            actualizado_en=to_iso(now),
            expiration=_expiration(now),
            user_id=delivery.user_id,
        )
        try:
            item.save(condition=DeliveryModel.event_id.does_not_exist())
            return _delivery_of(item)
        except PutError as exc:
            if not storage.condition_failed(exc):
                raise
        stored = self.get(delivery.webhook_id, delivery.event_id)
        assert stored is not None  # it was there a moment ago; deliveries are not deleted
        return stored

    def attempted(self, delivery: Delivery, estado: str, now: datetime) -> bool:
        """One more attempt of this send, and the state it left; False when a re-send
        has replaced this send meanwhile (nothing is written then)."""
        return self._moved(
            delivery,
            DeliveryModel.envio == delivery.envio,
            DeliveryModel.estado.set(estado),
            DeliveryModel.intentos.add(1),
            now=now,
        )

    def resent(self, delivery: Delivery, now: datetime) -> bool:
        """The next send of a delivery that is over; False when it is no longer over or
        another re-send came first."""
        return self._moved(
            delivery,
            (DeliveryModel.envio == delivery.envio) & (DeliveryModel.estado != PENDING),
            DeliveryModel.estado.set(PENDING),
            DeliveryModel.envio.add(1),
            now=now,
        )

    def not_resent(self, delivery: Delivery, now: datetime) -> None:
        """Undo `resent` of `delivery` (as it was before) when its message never left:
        the state it had; its send number stays counted."""
        self._moved(
            delivery,
            (DeliveryModel.envio == delivery.envio + 1) & (DeliveryModel.estado == PENDING),
            DeliveryModel.estado.set(delivery.estado),
            now=now,
        )

    def _moved(
        self, delivery: Delivery, condition: Condition, *actions: Action, now: datetime
    ) -> bool:
        try:
            DeliveryModel(delivery.webhook_id, delivery.event_id).update(
                actions=[
                    *actions,
                    DeliveryModel.actualizado_en.set(to_iso(now)),
                    DeliveryModel.expiration.set(_expiration(now)),
                ],
                condition=condition,
            )
        except UpdateError as exc:
            if storage.condition_failed(exc):
                return False
            raise
        return True


class Attempts:
    """The attempts of every delivery to one endpoint, newest first."""

    def __init__(self, settings: Settings):
        storage.bind(settings, AttemptModel)

    def add(self, webhook_id: int, attempt: Attempt, now: datetime) -> None:
        AttemptModel(
            webhook_id,
            attempt.id,
            event_id=attempt.event_id,
            type=attempt.type,
            intento=attempt.intento,
            status_code=attempt.status_code,
            error=attempt.error,
            estado=attempt.estado,
            timestamp=attempt.timestamp,
            duracion_ms=attempt.duracion_ms,
            expiration=_expiration(now),
        ).save()

    def page(self, webhook_id: int, after: int, limit: int) -> Page:
        """The attempts after place `after` (the newest first), at most `limit`."""
        results = AttemptModel.query(
            webhook_id, AttemptModel.id > after, limit=limit, page_size=limit
        )
        items = list(_attempts(results))
        resume = results.last_evaluated_key
        return Page(items, int(resume["posicion"]["N"]) if resume else None)


def _attempts(items: Iterator[AttemptModel]) -> Iterator[Attempt]:
    for item in items:
        yield Attempt(
            id=int(item.id),
            event_id=item.event_id,
            type=item.type,
            intento=int(item.intento),
            status_code=None if item.status_code is None else int(item.status_code),
            error=item.error,
            estado=item.estado,
            timestamp=item.timestamp,
            duracion_ms=int(item.duracion_ms),
        )
