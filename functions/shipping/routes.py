"""Shipping HTTP routes (interface §4.3): parse, call a rule or the repository, answer."""

from chalice import Blueprint

from common.clock import utcnow
from common.http import created, json_object, ok, path_id, query_param
from shipping import repository, rules

bp = Blueprint(__name__)


@bp.route("/api/envios", methods=["GET"])
def list_shipments():
    return ok([shipment.to_json() for shipment in repository.list_all()])


@bp.route("/api/envios", methods=["POST"])
def create_shipment():
    request = rules.parse_shipment(json_object(bp.current_request))
    return created(repository.create(request, utcnow()).to_json())


@bp.route("/api/envios/{id}", methods=["GET"])
def get_shipment(id):
    return ok(repository.get(path_id(id)).to_json())


@bp.route("/api/envios/{id}/status", methods=["PATCH"])
def change_status(id):
    shipment_id = path_id(id)
    status = rules.parse_status(query_param(bp.current_request, "status"))
    return ok(repository.set_status(shipment_id, status).to_json())
