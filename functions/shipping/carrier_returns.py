"""The return a shipment with lines makes when its carrier brings it back (a DEVUELTO
tracking event, docs/api.md#returns): opened in the orders service, which owns returns,
through its internal route, as this service (no token reaches that route)."""

from common.http.service_calls import CallFailed, CannotAsk, OnBehalf, Routes
from common.identity.callers import service_caller
from common.orders.return_records import CARRIER_RETURN_ROUTE
from common.platform.errors import Unavailable
from shipping.order_owners import RETRY_AFTER_SECONDS
from shipping.rules import Shipment


class CarrierReturns:
    def __init__(self, orders: Routes, service: str):
        """`orders`: the orders service, reached as the wiring chose (its function's
        invoke on AWS, this app's own routes under `chalice local`)."""
        self._orders = orders
        self._as = OnBehalf(service_caller(service), token=None, gateway_url="")

    def open(self, shipment: Shipment) -> None:
        """The return of the shipment's units, opened once: the orders service answers
        the first one again when asked again (keyed by the shipment). Unavailable when it
        cannot be asked, so the event that brought the shipment back is refused and
        retried rather than moving the shipment without its return."""
        body = {
            "pedidoId": shipment.pedido_id,
            "envioId": shipment.id,
            "lineas": [
                {"linea": line.linea, "cantidad": line.cantidad} for line in shipment.lineas
            ],
        }
        try:
            status, _ = self._orders.call("POST", CARRIER_RETURN_ROUTE, {}, self._as, body=body)
        except (CallFailed, CannotAsk):
            status = None
        if status not in (200, 201):
            raise Unavailable(
                "ORDERS_UNAVAILABLE",
                f"The orders service did not open the return of shipment {shipment.id}; "
                "it did not move: retry",
                retry_after_seconds=RETRY_AFTER_SECONDS,
            )
