"""The orders function's tables: orders and returns (both the layer's models,
common.orders.model and common.orders.return_model: the users, erasure, webhooks' and
dashboard's functions read them too)."""

from common.orders.model import OrderModel
from common.orders.return_model import ReturnModel

__all__ = ["OrderModel", "ReturnModel"]
