"""Shipment storage behind plain functions; the routes never see DynamoDB.

A status change is one conditional UpdateItem that sets only `status`, never a read
followed by a save of the whole item, so a concurrent change to any other attribute is
never lost and a shipment that does not exist is never created by a PATCH.
"""

from datetime import datetime

from pynamodb.exceptions import UpdateError

from common.errors import not_found
from common.ids import next_id
from common.storage import all_by_id, condition_failed, get_or_404, insert
from shipping import rules
from shipping.model import ShipmentModel

COUNTER = "shipments"
NOT_FOUND = ("SHIPMENT_NOT_FOUND", "Shipment")


def create(request: rules.ShipmentRequest, now: datetime) -> ShipmentModel:
    new = rules.new_shipment(request, next_id(COUNTER), now)
    return insert(ShipmentModel(**new.as_attributes()))


def get(shipment_id: int | None) -> ShipmentModel:
    return get_or_404(ShipmentModel, shipment_id, *NOT_FOUND)


def list_all() -> list[ShipmentModel]:
    return all_by_id(ShipmentModel)


def set_status(shipment_id: int | None, status: str) -> ShipmentModel:
    """Set the status of an existing shipment; returns the whole item as stored after it."""
    if shipment_id is None:
        raise not_found(*NOT_FOUND, shipment_id)
    shipment = ShipmentModel(shipment_id)
    try:
        # UpdateItem returns ALL_NEW, which PynamoDB loads into `shipment`.
        shipment.update(actions=[ShipmentModel.status.set(status)],
                        condition=ShipmentModel.id.exists())
    except UpdateError as exc:
        if condition_failed(exc):
            raise not_found(*NOT_FOUND, shipment_id) from None
        raise
    return shipment
