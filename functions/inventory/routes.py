"""Inventory HTTP routes (docs/api.md#inventory): read the request, call the service, answer."""

from chalice import Response

from common import stock as moves
from common.clock import to_iso, utcnow
from common.creating import CreatedOnce
from common.lists import Lists
from common.readers import caller_of, json_object, path_id, query_param
from common.responses import no_content, ok
from common.service_app import ServiceBlueprint
from inventory import access, rules, service
from inventory.service import Products, Stock


def blueprint(
    products: Products, stock: Stock, lists: Lists, once: CreatedOnce
) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)

    @bp.route("/api/inventario", methods=["GET"])
    def list_products() -> Response:
        return lists.answer(
            bp.current_request, lambda after, limit: service.list_products(products, after, limit)
        )

    # A role's refusal (403) comes before anything of the request is read (docs/api.md).
    @bp.route("/api/inventario", methods=["POST"])
    def create_product() -> Response:
        request = bp.current_request
        access.may_change_catalog(caller_of(request))
        body = json_object(request)
        fields = rules.parse_product(body)
        return once.created(request, body, lambda: service.create_product(products, fields))

    @bp.route("/api/inventario/alertas", methods=["GET"])
    def low_stock_alerts() -> Response:
        access.may_read_alerts(caller_of(bp.current_request))
        return lists.answer(
            bp.current_request,
            lambda after, limit: service.low_stock_alerts(products, after, limit),
        )

    @bp.route("/api/inventario/{id}", methods=["GET"])
    def get_product(id: str) -> Response:
        return ok(service.get_product(products, path_id(id)))

    @bp.route("/api/inventario/{id}", methods=["PUT"])
    def replace_product(id: str) -> Response:
        access.may_change_catalog(caller_of(bp.current_request))
        product_id = path_id(id)
        return ok(service.replace_product(products, product_id, json_object(bp.current_request)))

    @bp.route("/api/inventario/{id}", methods=["DELETE"])
    def delete_product(id: str) -> Response:
        access.may_change_catalog(caller_of(bp.current_request))
        service.delete_product(products, path_id(id))
        return no_content()

    @bp.route(moves.STOCK_ROUTE, methods=["GET"])
    def check_stock(id: str) -> Response:
        product_id = path_id(id)
        cantidad = query_param(bp.current_request, "cantidad")
        return ok(service.check_stock(products, product_id, cantidad))

    @bp.route("/api/inventario/{id}/reservas", methods=["GET"])
    def product_reservations(id: str) -> Response:
        access.may_read_reservations(caller_of(bp.current_request))
        return ok(service.product_reservations(products, stock, path_id(id)))

    stock_moves(bp, stock)
    return bp


def stock_moves(bp: ServiceBlueprint, stock: Stock) -> None:
    """The routes through which the orders service moves an order's units
    (docs/api.md#stock-follows-orders), and reads the reservations to repair them:
    internal ones (common.stock), which no token reaches."""

    @bp.route(moves.HOLDING_ROUTE, methods=["GET"])
    def holding_reservations() -> Response:
        request = bp.current_request
        access.may_move_stock(caller_of(request))
        after = query_param(request, "after")
        return ok(service.holding_reservations(stock, after))

    @bp.route(moves.RESERVATION_ROUTE, methods=["GET"])
    def order_reservation(pedidoId: str) -> Response:  # noqa: N803 - the route's name
        access.may_move_stock(caller_of(bp.current_request))
        return ok(service.reservation_of(stock, path_id(pedidoId)).to_service())

    @bp.route(moves.MOVE_ROUTE, methods=["POST"])
    def move_stock(pedidoId: str, accion: str) -> Response:  # noqa: N803
        request = bp.current_request
        access.may_move_stock(caller_of(request))
        now = to_iso(utcnow())
        return ok(service.move_stock(stock, path_id(pedidoId), accion, json_object(request), now))
