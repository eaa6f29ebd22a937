"""Shipping HTTP routes (interface §4.3): read the request, call the service, answer."""

from chalice import Blueprint

from common.clock import utcnow
from common.http import created, json_object, ok, path_id, query_param
from shipping import service
from shipping.service import Shipments


def blueprint(shipments: Shipments) -> Blueprint:
    bp = Blueprint(__name__)

    @bp.route("/api/envios", methods=["GET"])
    def list_shipments():
        return ok(service.list_shipments(shipments))

    @bp.route("/api/envios", methods=["POST"])
    def create_shipment():
        body = json_object(bp.current_request)
        return created(service.create_shipment(shipments, body, utcnow()))

    @bp.route("/api/envios/{id}", methods=["GET"])
    def get_shipment(id):
        return ok(service.get_shipment(shipments, path_id(id)))

    @bp.route("/api/envios/{id}/status", methods=["PATCH"])
    def change_status(id):
        shipment_id = path_id(id)
        status = query_param(bp.current_request, "status")
        return ok(service.change_status(shipments, shipment_id, status))

    return bp
