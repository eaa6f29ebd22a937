"""Placing an order: validate, check stock, save, publish. No order is saved unless the
stock check says the units are there."""

from datetime import datetime

from common import clock
from common.errors import ApiError
from orders import events, repository, rules
from orders.stock_client import InventoryUnavailable, StockAnswer, StockChecker

_REFUSALS = {
    StockAnswer.INSUFFICIENT: ("INSUFFICIENT_STOCK",
                               "Product {producto} has fewer than {cantidad} units in stock"),
    StockAnswer.UNKNOWN_PRODUCT: ("PRODUCT_NOT_FOUND", "Product {producto} does not exist"),
    StockAnswer.NOT_CONFIRMED: ("STOCK_NOT_CONFIRMED",
                                "The stock of product {producto} could not be confirmed; "
                                "retry later"),
}


def place_order(body: dict, *, checker: StockChecker, inventory_url: str,
                authorization: str | None, now: datetime | None = None) -> dict:
    request = rules.parse_order(body)
    try:
        answer = checker.check(inventory_url, request.producto_id, request.cantidad,
                               authorization)
    except InventoryUnavailable as exc:
        raise ApiError(503, "INVENTORY_UNAVAILABLE",
                       "The inventory service is unavailable; the order was not placed",
                       headers={"Retry-After": str(exc.retry_after_seconds)}) from None
    if answer in _REFUSALS:
        code, text = _REFUSALS[answer]
        raise ApiError(400, code, text.format(producto=request.producto_id,
                                              cantidad=request.cantidad))
    order = repository.add(
        **request.as_attributes(),
        status=rules.INITIAL_STATUS,
        observaciones=rules.observaciones_for(request.tipo_pedido),
        creado_en=clock.to_iso(now or clock.utcnow()),
    ).to_json()
    events.publish(rules.approved_event(order))
    return order
