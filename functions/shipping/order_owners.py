"""Whose order a new shipment fulfils: asked of the orders service, as the operator who
creates the shipment (common.http.service_calls), so that its customer can follow it
(docs/api.md#who-may-do-what). A shipment without lines reads nothing of the orders'
table; one with lines of its order reads and counts its parts there instead
(shipping.parts_repository, docs/api.md#shipments-of-parts)."""

import json
from collections.abc import Callable

from common.http.service_calls import CallFailed, CannotAsk, OnBehalf, Routes
from common.identity import user_ids
from common.platform.errors import Unavailable

ORDER_ROUTE = "/api/pedidos/{id}"
RETRY_AFTER_SECONDS = 5


def _unavailable() -> Unavailable:
    return Unavailable(
        "ORDERS_UNAVAILABLE",
        "The orders service did not say whose order this is; the shipment was not created: retry",
        retry_after_seconds=RETRY_AFTER_SECONDS,
    )


class OrderOwners:
    def __init__(self, orders: Routes, erased: Callable[[int], bool] = lambda _user_id: False):
        """`orders`: the orders service, reached as the wiring chose; `erased`: whether a
        userId's person was erased (common.identity.user_ids: no shipment is made for them)."""
        self._orders, self._erased = orders, erased

    def owner_of(self, pedido_id: int, on_behalf: OnBehalf) -> int | None:
        """The order's userId; None when no order has that id (a shipment may name one
        the orders service does not know: docs/api.md#shipping)."""
        try:
            status, body = self._orders.call("GET", ORDER_ROUTE, {"id": str(pedido_id)}, on_behalf)
        except (CallFailed, CannotAsk):
            raise _unavailable() from None
        if status == 404:
            return None
        if status == 200:
            try:
                user_id = json.loads(body).get("userId")
            except (ValueError, AttributeError):
                user_id = None
            if isinstance(user_id, int) and not isinstance(user_id, bool):
                if self._erased(user_id):
                    raise user_ids.erased(user_id)
                return user_id
        raise _unavailable()
