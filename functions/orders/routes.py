"""Orders HTTP routes (interface §4.1): read the request, call the service, answer."""

from chalice import Blueprint

from common.bearer import bearer_token
from common.clock import utcnow
from common.http import Lists, created, gateway_base_url, json_object, ok, path_id, query_param
from orders import service
from orders.service import Orders, Publisher
from orders.stock_client import StockChecker


def blueprint(orders: Orders, stock: StockChecker, events: Publisher,
              inventory_url: str | None, lists: Lists) -> Blueprint:
    """`inventory_url` None: the stock check goes to the gateway the order came in on."""
    bp = Blueprint(__name__)

    @bp.route("/api/pedidos", methods=["GET"])
    def list_orders():
        status = query_param(bp.current_request, "status")
        return lists.answer(bp.current_request, lambda after, limit: service.list_orders(
            orders, after, limit, status), filters={"status": status})

    @bp.route("/api/pedidos", methods=["POST"])
    def create_order():
        request = bp.current_request
        base_url = inventory_url or gateway_base_url(request)
        # The caller's own token: inventory sits behind the same authorizer.
        token = bearer_token(request.headers.get("authorization"))

        def check_stock(product_id: int, cantidad: int):
            return stock.check(base_url, product_id, cantidad, token)

        order = service.place_order(orders, check_stock, events, json_object(request),
                                    utcnow())
        return created(order)

    @bp.route("/api/pedidos/{id}", methods=["GET"])
    def get_order(id):
        return ok(service.get_order(orders, path_id(id)))

    return bp
