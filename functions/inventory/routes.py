"""Inventory HTTP routes (docs/api.md#inventory): read the request, call the service, answer."""

from chalice import Response

from common.http.creating import CreatedOnce
from common.http.lists import Lists
from common.http.readers import caller_of, gateway_base_url, json_object, path_id, query_param
from common.http.responses import json_response, no_content, ok
from common.http.service_app import ServiceBlueprint
from common.platform.clock import to_iso, utcnow
from common.stock import moves
from inventory import access, rules, service
from inventory.service import Balance, Products, Stock, Warehouses


def blueprint(
    products: Products,
    stock: Stock,
    warehouses: Warehouses,
    balance: Balance,
    lists: Lists,
    once: CreatedOnce,
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
        checked = rules.parse_new_product(body)
        return once.created(
            request, body, lambda: service.create_product(products, warehouses, checked)
        )

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

    stock_per_warehouse(bp, products, stock, warehouses)
    warehouse_routes(bp, stock, warehouses, lists)
    stock_moves(bp, products, stock, warehouses, balance)
    return bp


def stock_per_warehouse(
    bp: ServiceBlueprint, products: Products, stock: Stock, warehouses: Warehouses
) -> None:
    """A product's stock: the contract's check, its reservations, and in each warehouse
    its rows, a warehouse's count, a transfer (docs/api.md#stock-per-warehouse)."""

    @bp.route(moves.STOCK_ROUTE, methods=["GET"])
    def check_stock(id: str) -> Response:
        product_id = path_id(id)
        cantidad = query_param(bp.current_request, "cantidad")
        return ok(service.check_stock(products, product_id, cantidad))

    @bp.route("/api/inventario/{id}/reservas", methods=["GET"])
    def product_reservations(id: str) -> Response:
        access.may_read_reservations(caller_of(bp.current_request))
        return ok(service.product_reservations(products, stock, path_id(id)))

    @bp.route("/api/inventario/{id}/existencias", methods=["GET"])
    def stock_rows(id: str) -> Response:
        access.may_keep_stock(caller_of(bp.current_request))
        return ok(service.stock_rows(products, warehouses, path_id(id)))

    @bp.route("/api/inventario/{id}/existencias/{bodegaId}", methods=["PUT"])
    def set_stock_row(id: str, bodegaId: str) -> Response:  # noqa: N803 - the route's name
        request = bp.current_request
        access.may_keep_stock(caller_of(request))
        product_id, bodega_id = path_id(id), path_id(bodegaId)
        body, now = json_object(request), to_iso(utcnow())
        return ok(
            service.set_stock_row(products, warehouses, stock, product_id, bodega_id, body, now)
        )

    @bp.route("/api/inventario/{id}/transferencias", methods=["POST"])
    def transfer_stock(id: str) -> Response:
        request = bp.current_request
        access.may_keep_stock(caller_of(request))
        product_id, body, now = path_id(id), json_object(request), to_iso(utcnow())
        return ok(service.transfer_stock(products, warehouses, stock, product_id, body, now))


def warehouse_routes(
    bp: ServiceBlueprint, stock: Stock, warehouses: Warehouses, lists: Lists
) -> None:
    """Warehouses, operators only (docs/api.md#warehouses)."""

    def operator() -> None:
        access.may_manage_warehouses(caller_of(bp.current_request))

    @bp.route("/api/bodegas", methods=["GET"])
    def list_warehouses() -> Response:
        operator()
        return lists.answer(bp.current_request, warehouses.page)

    @bp.route("/api/bodegas", methods=["POST"])
    def create_warehouse() -> Response:
        operator()
        request = bp.current_request
        fields = rules.parse_warehouse(json_object(request))
        made = service.create_warehouse(warehouses, fields, to_iso(utcnow()))
        where = f"{gateway_base_url(request)}{request.context['resourcePath']}/{made.id}"
        return json_response(made, 201, {"Location": where})

    @bp.route("/api/bodegas/{id}", methods=["GET"])
    def get_warehouse(id: str) -> Response:
        operator()
        return ok(warehouses.get(path_id(id)))

    @bp.route("/api/bodegas/{id}", methods=["PUT"])
    def replace_warehouse(id: str) -> Response:
        operator()
        bodega_id = path_id(id)
        return ok(service.replace_warehouse(warehouses, bodega_id, json_object(bp.current_request)))

    @bp.route("/api/bodegas/{id}", methods=["DELETE"])
    def delete_warehouse(id: str) -> Response:
        operator()
        service.delete_warehouse(warehouses, stock, path_id(id), to_iso(utcnow()))
        return no_content()


def stock_moves(
    bp: ServiceBlueprint,
    products: Products,
    stock: Stock,
    warehouses: Warehouses,
    balance: Balance,
) -> None:
    """The routes through which the orders service checks an order's stock and moves its
    units (docs/api.md#stock-follows-orders), and the repair reads the reservations and
    has the counters checked: internal ones (common.stock.moves), which no token
    reaches."""

    @bp.route(moves.CHECK_ROUTE, methods=["POST"])
    def check_lines() -> Response:
        request = bp.current_request
        access.may_move_stock(caller_of(request))
        return ok(service.check_lines(products, warehouses, json_object(request)))

    @bp.route(moves.BALANCE_ROUTE, methods=["POST"])
    def balance_stock() -> Response:
        request = bp.current_request
        access.may_move_stock(caller_of(request))
        return ok(service.balance(balance, json_object(request), to_iso(utcnow())))

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

    @bp.route(moves.PART_ROUTE, methods=["POST"])
    def take_part(pedidoId: str, envioId: str) -> Response:  # noqa: N803 - the route's names
        request = bp.current_request
        access.may_move_stock(caller_of(request))
        order_id, shipment_id, now = path_id(pedidoId), path_id(envioId), to_iso(utcnow())
        return ok(service.take_part(stock, order_id, shipment_id, json_object(request), now))

    @bp.route(moves.RESTOCK_ROUTE, methods=["POST"])
    def restock(devolucionId: str) -> Response:  # noqa: N803 - the route's name
        request = bp.current_request
        access.may_move_stock(caller_of(request))
        now = to_iso(utcnow())
        return ok(service.restock(stock, path_id(devolucionId), json_object(request), now))

    @bp.route(moves.MOVE_ROUTE, methods=["POST"])
    def move_stock(pedidoId: str, accion: str) -> Response:  # noqa: N803
        request = bp.current_request
        access.may_move_stock(caller_of(request))
        now = to_iso(utcnow())
        return ok(service.move_stock(stock, path_id(pedidoId), accion, json_object(request), now))
