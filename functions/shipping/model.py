"""The shipments table's model: the layer's (common.shipment_model), as the users
function reads shipments too; named here as the shipping function's own."""

from common.shipment_model import (
    STATUS_SHARDS,
    OrderIndex,
    OwnerIndex,
    ShipmentModel,
    ShipmentStatusIndex,
)

__all__ = ["STATUS_SHARDS", "OrderIndex", "OwnerIndex", "ShipmentModel", "ShipmentStatusIndex"]
