"""Shipping HTTP routes (docs/api.md#shipping): read the request, call the service, answer."""

from chalice import Blueprint

from common.clock import utcnow
from common.http import CreatedOnce, Lists, ok, path_id, query_param
from shipping import service
from shipping.service import Shipments


def blueprint(shipments: Shipments, lists: Lists, once: CreatedOnce) -> Blueprint:
    bp = Blueprint(__name__)

    @bp.route("/api/envios", methods=["GET"])
    def list_shipments():
        request = bp.current_request
        filters = {"status": query_param(request, "status"),
                   "pedidoId": query_param(request, "pedidoId")}
        return lists.answer(request, lambda after, limit: service.list_shipments(
            shipments, after, limit, filters["status"], filters["pedidoId"]), filters)

    @bp.route("/api/envios", methods=["POST"])
    def create_shipment():
        return once.answer(bp.current_request,
                           lambda body: service.create_shipment(shipments, body, utcnow()))

    @bp.route("/api/envios/{id}", methods=["GET"])
    def get_shipment(id):
        return ok(service.get_shipment(shipments, path_id(id)))

    @bp.route("/api/envios/{id}/status", methods=["PATCH"])
    def change_status(id):
        shipment_id = path_id(id)
        status = query_param(bp.current_request, "status")
        return ok(service.change_status(shipments, shipment_id, status))

    return bp
