"""The notification use case: every JSON object is accepted and logged
(docs/api.md#notifications)."""

from collections.abc import Callable

PROCESSED = "Notificación procesada"
HEALTHY = "notification-service UP"


def receive(payload: dict, log: Callable[..., None]) -> str:
    """Logs the payload whatever it holds, and confirms with the fixed text."""
    log(event="notification received", payload=payload)
    return PROCESSED


def health() -> str:
    return HEALTHY
