"""Shipping HTTP routes (docs/api.md#shipping): read the request, call the service, answer."""

from chalice import Response

from common.clock import utcnow
from common.creating import CreatedOnce
from common.lists import Lists
from common.readers import caller_of, json_object, on_behalf_of, path_id, query_param
from common.responses import ok
from common.service_app import ServiceBlueprint
from shipping import access, rules, service
from shipping.order_owners import OrderOwners
from shipping.service import Shipments


def blueprint(
    shipments: Shipments, owners: OrderOwners, lists: Lists, once: CreatedOnce
) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)

    @bp.route("/api/envios", methods=["GET"])
    def list_shipments() -> Response:
        request = bp.current_request
        caller = caller_of(request)
        filters = {
            "status": query_param(request, "status"),
            "pedidoId": query_param(request, "pedidoId"),
        }
        return lists.answer(
            request,
            lambda after, limit: service.list_shipments(
                shipments, caller, after, limit, filters["status"], filters["pedidoId"]
            ),
            filters,
        )

    # A role's refusal (403) comes before anything of the request is read (docs/api.md).
    @bp.route("/api/envios", methods=["POST"])
    def create_shipment() -> Response:
        request = bp.current_request
        access.may_create(caller_of(request))
        on_behalf = on_behalf_of(request)
        body = json_object(request)
        new_shipment = rules.parse_shipment(body)
        return once.created(
            request,
            body,
            lambda: service.create_shipment(
                shipments,
                lambda pedido_id: owners.owner_of(pedido_id, on_behalf),
                new_shipment,
                utcnow(),
            ),
        )

    @bp.route("/api/envios/{id}", methods=["GET"])
    def get_shipment(id: str) -> Response:
        return ok(service.get_shipment(shipments, caller_of(bp.current_request), path_id(id)))

    @bp.route("/api/envios/{id}/status", methods=["PATCH"])
    def change_status(id: str) -> Response:
        request = bp.current_request
        caller = caller_of(request)
        access.may_change_status(caller)
        status = query_param(request, "status")
        return ok(service.change_status(shipments, caller, path_id(id), status, utcnow()))

    @bp.route("/api/envios/{id}/historial", methods=["GET"])
    def shipment_history(id: str) -> Response:
        caller = caller_of(bp.current_request)
        return ok(service.shipment_history(shipments, caller, path_id(id)))

    return bp
