"""The orders table's model: the layer's (common.order_model), as the users function
reads orders too; named here as the orders function's own."""

from common.order_model import (
    PENDING,
    PENDING_SHARDS,
    STATUS_PROJECTION,
    STATUS_SHARDS,
    OrderModel,
    OrderStatusIndex,
    PendingEventIndex,
    UserIndex,
)

__all__ = [
    "PENDING",
    "PENDING_SHARDS",
    "STATUS_PROJECTION",
    "STATUS_SHARDS",
    "OrderModel",
    "OrderStatusIndex",
    "PendingEventIndex",
    "UserIndex",
]
