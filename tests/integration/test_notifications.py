"""The notification service (docs/api.md#notifications): no auth, any JSON object, fixed answers."""

import json

import pytest

from notifications.service import HEALTHY, PROCESSED
from tests.support.logs import captured_lines


def test_a_json_object_is_logged_on_the_requests_one_json_line_and_confirmed(notifications):
    payload = {
        "type": "LOW_STOCK_ALERT",
        "sku": "A1",
        "stockActual": 2,
        "total": 19.99,
        "nested": {"multi\nline": ["a", None]},
    }
    with captured_lines(notifications.app.logger) as lines:
        response = notifications.post("/notificaciones", payload)
    assert response.status_code == 200
    assert response.body.decode() == PROCESSED == "Notificación procesada"
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    (logged,) = lines
    assert (logged["message"], logged["event"]) == ("request", "notification received")
    assert logged["payload"] == payload and logged["status"] == 200


def test_any_content_type_and_any_authorization_header_are_accepted(notifications):
    response = notifications.post(
        "/notificaciones",
        {},
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Authorization": "Bearer garbage",
        },
    )
    assert response.status_code == 200


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1, 2]", b"42", b'"x"', b"null", b"{"])
def test_anything_but_a_json_object_gets_400(notifications, raw):
    response = notifications.post("/notificaciones", raw=raw)
    assert response.status_code == 400
    assert json.loads(response.body)["error"] == "INVALID_JSON"


def test_health(notifications):
    response = notifications.get("/notificaciones/health")
    assert response.status_code == 200
    assert response.body.decode() == HEALTHY == "notification-service UP"
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
