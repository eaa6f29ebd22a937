"""Notification routes (docs/api.md#notifications). No authorizer: this API is open by contract."""

from functools import partial

from chalice import Response

from common.http.responses import text
from common.http.service_app import ServiceBlueprint, log_with_request
from common.platform.logs import Logger
from notifications import service
from notifications.payloads import parse_payload


def blueprint(logger: Logger) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)

    @bp.route("/notificaciones", methods=["POST"])
    def receive_notification() -> Response:
        # The payload goes on the request's one log line.
        log = partial(log_with_request, logger)
        return text(service.receive(parse_payload(bp.current_request.raw_body), log))

    @bp.route("/notificaciones/health", methods=["GET"])
    def health() -> Response:
        return text(service.health())

    return bp
