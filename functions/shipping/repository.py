"""Shipments in DynamoDB; the only shipping module that knows PynamoDB.

A status change is one conditional UpdateItem that sets only `status` and appends to the
history, never a read followed by a save of the whole item, so a concurrent change to any
other attribute is never lost, concurrent changes each add their entry, and a shipment
that does not exist is never created by a PATCH.
"""

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition, size

from common import history, shards, storage
from common.errors import Conflict
from common.history import Entry
from common.paging import Page
from common.repository import Repository
from common.settings import Settings
from shipping.model import STATUS_SHARDS, ShipmentModel
from shipping.rules import Shipment, unknown_shipment

COUNTER = "shipments"
# A shipment's history may hold this many changes beyond those it shows before a write
# trims it: the trimming's extra write is made once per TRIM_SLACK changes, not each.
TRIM_SLACK = 20
# Rounds of a same-status PATCH that finds the shipment moved away before it could read it.
MAX_ATTEMPTS = 5


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

    def set_status(self, shipment_id: int, status: str, change: Entry) -> Shipment:
        """Set the status of an existing shipment, appending `change` to its history in
        the same write, unless it is in that status already (then nothing is written);
        returns it as stored after, in `status`."""
        for _ in range(MAX_ATTEMPTS):
            item = ShipmentModel(self.known(shipment_id))
            try:
                # UpdateItem returns ALL_NEW, which PynamoDB loads into `item`. The status
                # shard moves with the status, and the history grows, in the same write.
                item.update(
                    actions=[
                        ShipmentModel.status.set(status),
                        ShipmentModel.status_shard.set(
                            shards.key(status, shipment_id, STATUS_SHARDS)
                        ),
                        storage.appended(ShipmentModel.historial, change),
                    ],
                    condition=ShipmentModel.id.exists() & (ShipmentModel.status != status),
                )
            except UpdateError as exc:
                if not storage.condition_failed(exc):
                    raise
                current = self.get(shipment_id)  # NotFound when there is none
                if current.status == status:
                    return current  # in that status already: nothing to record
                continue  # moved away meanwhile: this change is one to record
            if len(item.historial or []) > history.KEPT_CHANGES + TRIM_SLACK:
                _trim(item)
            return self._entity_of(item)
        raise Conflict("CONCURRENT_UPDATE", f"Shipment {shipment_id} kept changing; retry")

    def history(self, shipment_id: int) -> tuple[Shipment, list[Entry]]:
        """The shipment and its kept status changes."""
        item = storage.get_item(ShipmentModel, self.known(shipment_id))
        if item is None:
            raise unknown_shipment(shipment_id)
        return self._entity_of(item), storage.entries(item.historial)


def _trim(item: ShipmentModel) -> None:
    """Down to the KEPT_CHANGES newest changes, unless one was appended meanwhile (the
    next change trims then). One write per TRIM_SLACK changes, past the first hundred."""
    changes = storage.entries(item.historial)
    try:
        item.update(
            actions=[
                ShipmentModel.historial.set(
                    [storage.history_entry(entry) for entry in history.newest(changes)]
                )
            ],
            condition=size(ShipmentModel.historial) == len(changes),
        )
    except UpdateError as exc:
        if not storage.condition_failed(exc):
            raise


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
