"""Webhook HTTP routes (docs/api.md#webhooks): read the request, call the service, answer.
Operators only: a customer's request is refused (403) before anything else of it is
read."""

from collections.abc import Callable
from datetime import datetime

from chalice import Response

from common.http.lists import Lists
from common.http.readers import caller_of, gateway_base_url, json_object, path_id
from common.http.responses import api_json, json_response, no_content, ok
from common.http.service_app import ServiceBlueprint
from common.platform.clock import utcnow
from webhooks import access, rules, service
from webhooks.service import Attempts, Deliveries, Endpoints, Issued, Queue, Secrets, TargetCheck


def shown_once(issued: Issued) -> dict:
    """A create's or a rotation's answer: the endpoint and, this once, its secret."""
    shown = api_json(issued.endpoint)
    assert isinstance(shown, dict)  # an endpoint is a dataclass: an object
    return {**shown, "secreto": issued.secreto}


def blueprint(
    endpoints: Endpoints,
    vault: Secrets,
    deliveries: Deliveries,
    attempts: Attempts,
    queue: Queue,
    check_target: TargetCheck,
    lists: Lists,
    clock: Callable[[], datetime] = utcnow,
) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)

    def operator() -> None:
        access.may_manage_webhooks(caller_of(bp.current_request))

    @bp.route("/api/webhooks", methods=["GET"])
    def list_webhooks() -> Response:
        operator()
        return lists.answer(
            bp.current_request,
            lambda after, limit: service.list_endpoints(endpoints, after, limit),
        )

    @bp.route("/api/webhooks", methods=["POST"])
    def create_webhook() -> Response:
        operator()
        request = bp.current_request
        fields = rules.parse_endpoint(json_object(request))
        issued = service.create_endpoint(endpoints, vault, fields, check_target, clock())
        where = f"{request.context['resourcePath']}/{issued.endpoint.id}"
        location = gateway_base_url(request) + where
        return json_response(shown_once(issued), 201, {"Location": location})

    @bp.route("/api/webhooks/{id}", methods=["GET"])
    def get_webhook(id: str) -> Response:
        operator()
        return ok(service.get_endpoint(endpoints, path_id(id)))

    @bp.route("/api/webhooks/{id}", methods=["DELETE"])
    def delete_webhook(id: str) -> Response:
        operator()
        service.delete_endpoint(endpoints, path_id(id))
        return no_content()

    @bp.route("/api/webhooks/{id}/secreto", methods=["POST"])
    def rotate_secret(id: str) -> Response:
        operator()
        return ok(shown_once(service.rotate_secret(endpoints, vault, path_id(id), clock())))

    _delivery_routes(bp, operator, endpoints, deliveries, attempts, queue, lists, clock)
    return bp


def _delivery_routes(
    bp: ServiceBlueprint,
    operator: Callable[[], None],
    endpoints: Endpoints,
    deliveries: Deliveries,
    attempts: Attempts,
    queue: Queue,
    lists: Lists,
    clock: Callable[[], datetime],
) -> None:
    """An endpoint's attempts, and a re-send of one of its events."""

    @bp.route("/api/webhooks/{id}/entregas", methods=["GET"])
    def list_attempts(id: str) -> Response:
        operator()
        webhook_id = path_id(id)
        return lists.answer(
            bp.current_request,
            lambda after, limit: service.attempts(endpoints, attempts, webhook_id, after, limit),
            # The token is this endpoint's list's alone.
            filters={"webhook": str(webhook_id)},
        )

    @bp.route("/api/webhooks/{id}/entregas/{eventId}/reenviar", methods=["POST"])
    def resend(id: str, eventId: str) -> Response:  # noqa: N803 - the path's name
        operator()
        delivery = service.resend(endpoints, deliveries, queue, path_id(id), eventId, clock())
        return json_response(delivery, 202)
