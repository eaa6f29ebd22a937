"""Orders HTTP routes (docs/api.md#orders): read the request, call the service, answer."""

from chalice import Response

from common.http.creating import CreatedOnce
from common.http.lists import Lists
from common.http.readers import caller_of, json_object, on_behalf_of, path_id, query_param
from common.http.responses import created, ok
from common.http.service_app import ServiceBlueprint
from common.identity.callers import require_service
from common.orders.return_records import CARRIER_RETURN_ROUTE
from common.platform.clock import utcnow
from common.stock.client import Inventory
from orders import access, return_rules, return_service, service
from orders.commands import ChangeStatus
from orders.return_service import Returns
from orders.service import Orders, Outcomes, Publisher


def blueprint(
    orders: Orders,
    stock: Inventory,
    events: Publisher,
    outcomes: Outcomes,
    lists: Lists,
    once: CreatedOnce,
    returns: Returns,
) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)

    @bp.route("/api/pedidos", methods=["GET"])
    def list_orders() -> Response:
        request = bp.current_request
        caller, status = caller_of(request), query_param(request, "status")
        return lists.answer(
            request,
            lambda after, limit: service.list_orders(orders, caller, after, limit, status),
            filters={"status": status},
        )

    @bp.route("/api/pedidos", methods=["POST"])
    def create_order() -> Response:
        request = bp.current_request
        # The stock check is asked as the caller: inventory sits behind the same authorizer.
        on_behalf = on_behalf_of(request)
        body = json_object(request)
        placing = service.order_to_place(on_behalf, body, utcnow())
        return once.created(
            request, body, lambda: service.place_order(orders, stock, events, outcomes, placing)
        )

    @bp.route("/api/pedidos/{id}", methods=["GET"])
    def get_order(id: str) -> Response:
        return ok(service.get_order(orders, caller_of(bp.current_request), path_id(id)))

    @bp.route("/api/pedidos/{id}/status", methods=["PATCH"])
    def change_status(id: str) -> Response:
        request = bp.current_request
        caller, status = caller_of(request), query_param(request, "status")
        # A role's refusal (403) comes before anything else of the request is read.
        access.may_move_to(caller, status)
        asked = ChangeStatus(
            order_id=path_id(id),
            status=status,
            caller=caller,
            at=utcnow(),
            request_id=request.context.get("requestId"),
        )
        return ok(service.change_status(orders, stock, asked))

    @bp.route("/api/pedidos/{id}/historial", methods=["GET"])
    def order_history(id: str) -> Response:
        return ok(service.order_history(orders, caller_of(bp.current_request), path_id(id)))

    return_routes(bp, orders, stock, returns, lists)
    return bp


def return_routes(
    bp: ServiceBlueprint, orders: Orders, stock: Inventory, returns: Returns, lists: Lists
) -> None:
    """Returns (docs/api.md#returns)."""

    @bp.route("/api/pedidos/{id}/devoluciones", methods=["POST"])
    def request_return(id: str) -> Response:
        request = bp.current_request
        caller, order_id = caller_of(request), path_id(id)
        body = json_object(request)
        made = return_service.request_return(orders, returns, caller, order_id, body, utcnow())
        return created(made)

    @bp.route("/api/pedidos/{id}/devoluciones", methods=["GET"])
    def order_returns(id: str) -> Response:
        request = bp.current_request
        caller, order_id = caller_of(request), path_id(id)
        return lists.answer(
            request,
            lambda after, limit: return_service.order_returns(
                orders, returns, caller, order_id, after, limit
            ),
        )

    @bp.route("/api/devoluciones", methods=["GET"])
    def list_returns() -> Response:
        request = bp.current_request
        caller, estado = caller_of(request), query_param(request, "estado")
        return lists.answer(
            request,
            lambda after, limit: return_service.list_returns(returns, caller, after, limit, estado),
            filters={"estado": estado},
        )

    @bp.route("/api/devoluciones/{id}", methods=["GET"])
    def get_return(id: str) -> Response:
        return ok(return_service.get_return(returns, caller_of(bp.current_request), path_id(id)))

    return_moves(bp, orders, stock, returns)


def return_moves(bp: ServiceBlueprint, orders: Orders, stock: Inventory, returns: Returns) -> None:
    """A return's states, its reception and its history (docs/api.md#returns)."""

    @bp.route("/api/devoluciones/{id}/status", methods=["PATCH"])
    def change_return_state(id: str) -> Response:
        request = bp.current_request
        caller, status = caller_of(request), query_param(request, "status")
        access.may_move_return_to(caller, status)
        return ok(
            return_service.change_state(orders, returns, caller, path_id(id), status, utcnow())
        )

    @bp.route("/api/devoluciones/{id}/recepcion", methods=["POST"])
    def receive_return(id: str) -> Response:
        request = bp.current_request
        caller = caller_of(request)
        access.may_receive(caller)
        return_id, body = path_id(id), json_object(request)
        received = return_service.receive(
            orders,
            returns,
            stock,
            caller,
            return_id,
            body,
            utcnow(),
            request.context.get("requestId"),
        )
        return ok(received)

    @bp.route(CARRIER_RETURN_ROUTE, methods=["POST"])
    def carrier_return() -> Response:
        request = bp.current_request
        require_service(caller_of(request), "open a carrier's return")
        order_id, envio_id, lines = return_rules.parse_carrier_return(json_object(request))
        opened = return_service.open_carrier_return(
            orders, returns, order_id, envio_id, lines, utcnow()
        )
        return created(opened)

    @bp.route("/api/devoluciones/{id}/historial", methods=["GET"])
    def return_history(id: str) -> Response:
        caller = caller_of(bp.current_request)
        return ok(return_service.return_history_of(returns, caller, path_id(id)))
