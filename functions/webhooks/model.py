"""The webhooks' tables' models: the layer's (common.webhook_model), as the events and
delivery functions read and write them too; named here as the webhooks function's own."""

from common.webhook_model import (
    ACTIVE,
    ActiveIndex,
    AttemptModel,
    DeliveryModel,
    DeliveryUserIndex,
    ReplacedSecret,
    WebhookModel,
)

__all__ = [
    "ACTIVE",
    "ActiveIndex",
    "AttemptModel",
    "DeliveryModel",
    "DeliveryUserIndex",
    "ReplacedSecret",
    "WebhookModel",
]
