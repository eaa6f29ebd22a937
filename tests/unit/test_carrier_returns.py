"""A shipment brought back opens its return in the orders service (shipping.carrier_returns):
what it asks for, and that a failure to open it refuses the event rather than moving the
shipment without its return (docs/api.md#returns)."""

import json

import pytest

from common.http.service_calls import CallFailed
from common.platform.errors import Unavailable
from shipping.carrier_returns import CarrierReturns
from tests.unit.test_shipment_parts_rules import shipment


class Orders:
    """The orders service's internal route, answering as told."""

    def __init__(self, status: int | None):
        self.status, self.asked = status, []

    def call(self, method, route, path_parameters, on_behalf, *, query=None, body=None):
        self.asked.append((method, route, on_behalf.caller.role, body))
        if self.status is None:
            raise CallFailed("down")
        return self.status, json.dumps({}).encode()


def test_it_asks_as_a_service_for_the_shipments_units():
    orders = Orders(201)
    CarrierReturns(orders, "shipping").open(shipment(2, (1, 3), (2, 1)))
    ((method, route, role, sent),) = orders.asked
    assert (method, route, role) == ("POST", "/internal/devoluciones", "service")
    assert sent["lineas"] == [{"linea": 1, "cantidad": 3}, {"linea": 2, "cantidad": 1}]


@pytest.mark.parametrize("status", [None, 500, 404, 409])
def test_a_return_not_opened_refuses_the_event_with_a_retry(status):
    with pytest.raises(Unavailable) as refused:
        CarrierReturns(Orders(status), "shipping").open(shipment(2, (1, 3)))
    assert refused.value.code == "ORDERS_UNAVAILABLE" and refused.value.retry_after_seconds == 5
