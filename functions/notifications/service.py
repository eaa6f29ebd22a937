"""The notification use case: every JSON object is accepted and logged
(docs/api.md#notifications)."""

from collections.abc import Callable

from notifications.payloads import Payload, log_fields

PROCESSED = "Notificación procesada"
HEALTHY = "notification-service UP"


def receive(payload: Payload, log: Callable[..., None]) -> str:
    """Logs the payload whatever it holds (cut when large), and confirms with the fixed
    text."""
    log(event="notification received", **log_fields(payload))
    return PROCESSED


def health() -> str:
    return HEALTHY
