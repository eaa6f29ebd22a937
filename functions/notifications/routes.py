"""Notification routes (interface §4.4). No authorizer: this API is open by contract."""

from chalice import Blueprint, Response

from common.http import json_object
from common.logs import get_logger

bp = Blueprint(__name__)
logger = get_logger("notifications")

PROCESSED = "Notificación procesada"
HEALTHY = "notification-service UP"


def _text(body: str) -> Response:
    return Response(body=body, status_code=200,
                    headers={"Content-Type": "text/plain; charset=utf-8"})


@bp.route("/notificaciones", methods=["POST"])
def receive_notification():
    payload = json_object(bp.current_request)
    logger.info("notification received", extra={"payload": payload})
    return _text(PROCESSED)


@bp.route("/notificaciones/health", methods=["GET"])
def health():
    return _text(HEALTHY)
