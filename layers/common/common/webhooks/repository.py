"""Webhooks in DynamoDB: the endpoints, each event's delivery to each, and the attempts.
The webhooks function (the API), the events function (the active endpoints, a
delivery's opening) and the delivery function (its attempts) read and write them
through this, the one module of theirs that knows PynamoDB besides their model
(common.webhooks.model).

An endpoint's changes after its create (a rotation, a 410 turning it off) are
UpdateItems of the attributes they change, never a put of the whole item read before,
so a rotation and a deactivation at once both stand. A delivery's state moves only
with the send it belongs to (`reenvios`): a message of a send that a re-send replaced
changes nothing.
"""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from pynamodb.exceptions import DeleteError, PutError, UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from common.platform import personal
from common.platform.clock import to_iso
from common.platform.settings import Cloud
from common.storage import tables as storage
from common.storage.paging import Page
from common.storage.repository import Repository
from common.webhooks.model import ACTIVE, AttemptModel, DeliveryModel, ReplacedSecret, WebhookModel
from common.webhooks.records import (
    PENDING,
    RETRYING,
    Attempt,
    Delivery,
    Endpoint,
    Replaced,
    Subscription,
    unknown_webhook,
)

COUNTER = "webhooks"


class _Unchanged(Exception):
    """An endpoint's update whose condition no longer held (it is there)."""


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
            secretos_anteriores=_replaced_items(endpoint.anteriores) or None,
        )
    )
    item.activo_marca = ACTIVE if endpoint.activo else None
    return item


def _replaced_items(anteriores: tuple[Replaced, ...]) -> list[ReplacedSecret]:
    return [ReplacedSecret(secreto=r.secreto, hasta=r.hasta) for r in anteriores]


def endpoint_of(item: WebhookModel) -> Endpoint:
    anteriores = [Replaced(str(r.secreto), str(r.hasta)) for r in item.secretos_anteriores or ()]
    if item.secreto_anterior and item.secreto_anterior_hasta:  # written by one rotation
        anteriores.append(Replaced(item.secreto_anterior, item.secreto_anterior_hasta))
    return Endpoint(
        id=int(item.id),
        url=item.url,
        eventos=tuple(str(name) for name in item.eventos),
        activo=bool(item.activo),
        creado_en=item.creado_en,
        secreto=item.secreto,
        anteriores=tuple(anteriores),
    )


class WebhookRepository(Repository):
    def __init__(self, cloud: Cloud):
        super().__init__(
            cloud,
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

    def rotate(self, endpoint: Endpoint, replacing: str) -> bool:
        """Store a rotated endpoint's secrets (webhooks.rules.rotated), nothing else of it, on the
        condition that its current secret is still `replacing` (as stored): False when
        another rotation came first (a secret it answered must not be lost)."""
        m = WebhookModel
        try:
            self._update(
                endpoint.id,
                m.secreto.set(endpoint.secreto),
                m.secretos_anteriores.set(_replaced_items(endpoint.anteriores)),
                m.secreto_anterior.remove(),
                m.secreto_anterior_hasta.remove(),
                condition=m.secreto == replacing,
            )
        except _Unchanged:
            return False
        return True

    def deactivate(self, ident: int) -> None:
        """Off the active list: no event is sent to it any more (its endpoint said 410)."""
        self._update(ident, WebhookModel.activo.set(False), WebhookModel.activo_marca.remove())

    def _update(self, ident: int, *actions: Action, condition: Condition | None = None) -> None:
        """The update, on the endpoint being there (404) and `condition` (_Unchanged)."""
        exists = WebhookModel.id.exists()
        try:
            WebhookModel(self.known(ident)).update(
                actions=list(actions),
                condition=exists if condition is None else exists & condition,
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise
        else:
            return
        if condition is not None and storage.get_item(WebhookModel, ident) is not None:
            raise _Unchanged
        raise unknown_webhook(ident)

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
        reenvios=int(item.reenvios),
        intentos=int(item.intentos),
        actualizado_en=item.actualizado_en,
        siguiente_intento=item.siguiente_intento,
        user_id=int(item.user_id) if item.user_id is not None else None,
    )


class Deliveries:
    """Each event's delivery to each endpoint."""

    def __init__(self, cloud: Cloud):
        storage.bind(cloud, DeliveryModel)

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
            reenvios=delivery.reenvios,
            intentos=delivery.intentos,
            actualizado_en=to_iso(now),
            siguiente_intento=to_iso(now),  # its first try: now
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

    def attempted(
        self,
        delivery: Delivery,
        intento: int,
        estado: str,
        now: datetime,
        siguiente: str | None = None,
    ) -> bool:
        """Attempts up to number `intento` of this send recorded, the state they left,
        and when the next is due (None: none is); False when a re-send has replaced this
        send meanwhile (nothing is written then)."""
        m = DeliveryModel
        due = m.siguiente_intento.set(siguiente) if siguiente else m.siguiente_intento.remove()
        return self._moved(
            delivery,
            m.reenvios == delivery.reenvios,
            m.estado.set(estado),
            m.intentos.set(intento),
            due,
            now=now,
        )

    def resent(self, delivery: Delivery, now: datetime) -> bool:
        """The next send of a delivery that is over, or stalled (as read: untouched
        since); False when it is no longer so, or another re-send came first."""
        m = DeliveryModel
        over = m.estado != PENDING
        if delivery.stalled(now):
            over = over | (m.actualizado_en == delivery.actualizado_en)
        return self._moved(
            delivery,
            (m.reenvios == delivery.reenvios) & over,
            m.estado.set(PENDING),
            m.reenvios.add(1),
            m.intentos.set(0),
            m.siguiente_intento.set(to_iso(now)),
            now=now,
        )

    def not_resent(self, delivery: Delivery, now: datetime) -> None:
        """Undo `resent` of `delivery` (as it was before) when its message never left:
        the state it had; its send number stays counted."""
        m = DeliveryModel
        self._moved(
            delivery,
            (m.reenvios == delivery.reenvios + 1) & (m.estado == PENDING),
            m.estado.set(delivery.estado),
            m.intentos.set(delivery.intentos),
            m.siguiente_intento.set(delivery.siguiente_intento)
            if delivery.siguiente_intento
            else m.siguiente_intento.remove(),
            now=now,
        )

    def of(self, user_id: int) -> Iterator[tuple[int, str]]:
        """The (webhookId, eventId) of each delivery of an event about the person, by
        their index (an erasure's)."""
        for item in DeliveryModel.by_user.query(user_id):
            yield int(item.webhook_id), str(item.event_id)

    def strip(self, webhook_id: int, event_id: str) -> None:
        """The delivery's body without the person's data (common.platform.personal), as every
        later attempt and re-send sends it; on the condition that it is still the body
        read (its only other writes touch its state)."""
        stored = self.get(webhook_id, event_id)
        if stored is None:
            return  # gone (its 30 days are up)
        stripped = personal.stripped_event(stored.body)
        if stripped == stored.body:
            return
        try:
            DeliveryModel(webhook_id, event_id).update(
                actions=[DeliveryModel.body.set(stripped)],
                condition=DeliveryModel.body == stored.body,
            )
        except UpdateError as exc:
            if not storage.condition_failed(exc):
                raise

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

    def __init__(self, cloud: Cloud):
        storage.bind(cloud, AttemptModel)

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
            siguiente_intento=attempt.siguiente_intento,
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
            # Written before attempts ended failed with a next try: PENDIENTE then.
            estado=RETRYING if item.estado == PENDING else item.estado,
            timestamp=item.timestamp,
            duracion_ms=int(item.duracion_ms),
            siguiente_intento=item.siguiente_intento,
        )
