"""Shipments in DynamoDB; the only shipping module that knows PynamoDB.

A status change is one conditional UpdateItem that sets only `status`, never a read
followed by a save of the whole item, so a concurrent change to any other attribute is
never lost and a shipment that does not exist is never created by a PATCH.
"""

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition

from common import shards, storage
from common.paging import Page
from common.repository import Repository
from common.settings import Settings
from shipping.model import STATUS_SHARDS, ShipmentModel
from shipping.rules import Shipment, unknown_shipment

COUNTER = "shipments"


def item_of(shipment: Shipment) -> ShipmentModel:
    """The item of a shipment: its fields, its shard of the whole list and of its status."""
    item = storage.listed(storage.to_item(ShipmentModel, shipment))
    item.status_shard = shards.key(shipment.status, shipment.id, STATUS_SHARDS)
    return item


class ShipmentRepository(Repository):
    def __init__(self, settings: Settings):
        super().__init__(
            settings,
            ShipmentModel,
            Shipment,
            counter=COUNTER,
            unknown=unknown_shipment,
            item_of=item_of,
        )

    def page(
        self,
        after: int,
        limit: int,
        status: str | None = None,
        pedido_id: int | None = None,
        owner_id: int | None = None,
    ) -> Page:
        """By order when given one (an order has few shipments, so filtering them by
        status and owner is cheap); else by owner (a customer's, filtered by status);
        else by status; else the whole list."""
        if pedido_id is not None:
            return self._index_page(
                ShipmentModel.by_order, pedido_id, after, limit, _only(status, owner_id)
            )
        if owner_id is not None:
            return self._index_page(
                ShipmentModel.by_user, owner_id, after, limit, _only(status, None)
            )
        if status is not None:
            return self._sharded_page(ShipmentModel.by_status, status, STATUS_SHARDS, after, limit)
        return super().page(after, limit)

    def set_status(self, shipment_id: int, status: str) -> Shipment:
        """Set the status of an existing shipment; returns it as stored after the change."""
        item = ShipmentModel(self.known(shipment_id))
        try:
            # UpdateItem returns ALL_NEW, which PynamoDB loads into `item`. The status
            # shard moves with the status, in the same write.
            item.update(
                actions=[
                    ShipmentModel.status.set(status),
                    ShipmentModel.status_shard.set(shards.key(status, shipment_id, STATUS_SHARDS)),
                ],
                condition=ShipmentModel.id.exists(),
            )
        except UpdateError as exc:
            if storage.condition_failed(exc):
                raise unknown_shipment(shipment_id) from None
            raise
        return storage.to_domain(item, Shipment)


def _only(status: str | None, owner_id: int | None) -> Condition | None:
    """The filter keeping a status and an owner, either or both (None: keep all)."""
    conditions = [
        condition
        for condition in (
            ShipmentModel.status == status if status is not None else None,
            ShipmentModel.owner_id == owner_id if owner_id is not None else None,
        )
        if condition is not None
    ]
    if not conditions:
        return None
    return conditions[0] if len(conditions) == 1 else conditions[0] & conditions[1]
