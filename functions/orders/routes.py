"""Orders HTTP routes (docs/api.md#orders): read the request, call the service, answer."""

from chalice import Blueprint

from common.bearer import bearer_token
from common.clock import utcnow
from common.http import CreatedOnce, Lists, gateway_base_url, ok, path_id, query_param
from orders import service
from orders.service import Orders, Outcomes, Publisher
from orders.stock_client import Caller, StockChecker


def blueprint(orders: Orders, stock: StockChecker, events: Publisher, outcomes: Outcomes,
              lists: Lists, once: CreatedOnce) -> Blueprint:
    bp = Blueprint(__name__)

    @bp.route("/api/pedidos", methods=["GET"])
    def list_orders():
        status = query_param(bp.current_request, "status")
        return lists.answer(bp.current_request, lambda after, limit: service.list_orders(
            orders, after, limit, status), filters={"status": status})

    @bp.route("/api/pedidos", methods=["POST"])
    def create_order():
        request = bp.current_request
        authorizer = request.context.get("authorizer") or {}
        # The caller's own identity: inventory sits behind the same authorizer.
        caller = Caller(token=bearer_token(request.headers.get("authorization")),
                        sub=authorizer.get("sub") or authorizer.get("principalId"),
                        gateway_url=gateway_base_url(request),
                        request_id=request.context.get("requestId"))

        def check_stock(product_id: int, cantidad: int):
            return stock.check(product_id, cantidad, caller)

        return once.answer(request, lambda body: service.place_order(
            orders, check_stock, events, outcomes, body, utcnow()))

    @bp.route("/api/pedidos/{id}", methods=["GET"])
    def get_order(id):
        return ok(service.get_order(orders, path_id(id)))

    @bp.route("/api/pedidos/{id}/status", methods=["PATCH"])
    def change_status(id):
        order_id = path_id(id)
        status = query_param(bp.current_request, "status")
        return ok(service.change_status(orders, order_id, status))

    return bp
