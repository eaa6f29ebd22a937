"""The notification use case: whatever the payload, it is logged and confirmed."""

from notifications import service


def test_every_payload_is_logged_and_confirmed():
    logged = []
    payload = {"type": "LOW_STOCK_ALERT", "anything": [1, {"x": None}]}
    assert service.receive(payload, lambda **keys: logged.append(keys)) == \
        "Notificación procesada"
    assert logged == [{"event": "notification received", "payload": payload}]
    assert service.health() == "notification-service UP"
