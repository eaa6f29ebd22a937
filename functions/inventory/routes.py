"""Inventory HTTP routes (interface §4.2): parse, call a rule or the repository, answer."""

from chalice import Blueprint

from common.http import created, json_object, no_content, ok, path_id, query_param
from inventory import repository, rules

bp = Blueprint(__name__)


@bp.route("/api/inventario", methods=["GET"])
def list_products():
    return ok([product.to_json() for product in repository.list_all()])


@bp.route("/api/inventario", methods=["POST"])
def create_product():
    fields = rules.parse_product(json_object(bp.current_request))
    return created(repository.create(fields).to_json())


@bp.route("/api/inventario/alertas", methods=["GET"])
def low_stock_alerts():
    return ok([product.to_json() for product in repository.list_all()
               if rules.in_alert(product.stock_actual, product.umbral_minimo)])


@bp.route("/api/inventario/{id}", methods=["GET"])
def get_product(id):
    return ok(repository.get(path_id(id)).to_json())


@bp.route("/api/inventario/{id}", methods=["PUT"])
def replace_product(id):
    product_id = path_id(id)
    fields = rules.parse_product(json_object(bp.current_request))
    return ok(repository.replace(product_id, fields).to_json())


@bp.route("/api/inventario/{id}", methods=["DELETE"])
def delete_product(id):
    repository.delete(path_id(id))
    return no_content()


@bp.route("/api/inventario/{id}/stock", methods=["GET"])
def check_stock(id):
    product_id = path_id(id)
    cantidad = rules.parse_cantidad(query_param(bp.current_request, "cantidad"))
    product = repository.get(product_id)
    return ok(rules.has_stock(product.stock_actual, cantidad))
