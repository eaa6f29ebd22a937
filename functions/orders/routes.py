"""Orders HTTP routes (interface §4.1)."""

from chalice import Blueprint

from common import config
from common.http import created, json_object, ok, path_id
from orders import repository, stock_client
from orders.placing import place_order

bp = Blueprint(__name__)


@bp.route("/api/pedidos", methods=["GET"])
def list_orders():
    return ok([order.to_json() for order in repository.list_all()])


@bp.route("/api/pedidos", methods=["POST"])
def create_order():
    request = bp.current_request
    order = place_order(
        json_object(request),
        checker=stock_client.checker(),
        inventory_url=config.inventory_service_url() or stock_client.gateway_base_url(request),
        # The caller's own token: inventory sits behind the same authorizer.
        authorization=request.headers.get("authorization"),
    )
    return created(order)


@bp.route("/api/pedidos/{id}", methods=["GET"])
def get_order(id):
    return ok(repository.get(path_id(id)).to_json())
