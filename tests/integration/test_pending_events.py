"""No lost events: an order whose event cannot be published is marked pending in
DynamoDB (a sparse index), and the scheduled sweep publishes it, once."""

import os
from datetime import timedelta

import pytest

from common.platform import aws
from common.platform.logs import get_logger
from event_sweep.sweep import SWEEP_GRACE, Sweep
from orders.repository import OrderRepository
from tests.support.api import body
from tests.support.endpoints import point
from tests.support.fakes import closed_port_url
from tests.support.samples import ANA_ORDER
from tests.support.settings import every

ORDER = ANA_ORDER


@pytest.fixture
def product(orders_api):
    return body(
        orders_api.post(
            "/api/inventario",
            {
                "sku": "P-1",
                "nombre": "Caja",
                "precioUnitario": 5,
                "stockActual": 9,
                "umbralMinimo": 1,
            },
        )
    )


SWEEPER = "EventSweeperFunction"


def sweep(settings, grace=timedelta(0)):
    """The sweep, as its function runs it; by default without its grace for young orders
    (these were all just placed)."""
    with aws.acting_as(SWEEPER):
        built = Sweep(settings.cloud, settings.peers, get_logger("event-sweep"), grace=grace)

    def run():
        with aws.acting_as(SWEEPER):
            return built()

    return run


def pending_ids(settings) -> list[int]:
    with aws.acting_as(SWEEPER):
        return [order.id for order in OrderRepository(settings.cloud).pending_events(100)]


def test_an_event_that_cannot_be_published_is_swept_later_and_arrives_once(
    orders_gateway, order_events, product, monkeypatch
):
    lambda_url = os.environ["AWS_ENDPOINT_URL_LAMBDA"]  # the recorder's (order_events)
    point(monkeypatch, "LAMBDA", closed_port_url())  # Lambda unreachable
    down = orders_gateway()
    placed = [
        body(down.post("/api/pedidos", {**ORDER, "productoId": product["id"]})) for _ in range(2)
    ]
    assert [order["status"] for order in placed] == ["PENDIENTE", "PENDIENTE"]
    settings = every()
    assert pending_ids(settings) == [order["id"] for order in placed]
    # The order itself is whole, and says nothing of the bookkeeping.
    assert body(down.get(f"/api/pedidos/{placed[0]['id']}")) == placed[0]
    assert order_events.wait_for(1, timeout=0.5) == []

    assert sweep(settings)() == {"republished": 0, "morePending": True}  # still down

    point(monkeypatch, "LAMBDA", lambda_url)  # Lambda is back
    swept = sweep(every())
    assert swept() == {"republished": 2, "morePending": False}
    events = order_events.wait_for(2)
    assert sorted(event["pedidoId"] for event in events) == [o["id"] for o in placed]
    assert pending_ids(settings) == []
    assert swept() == {"republished": 0, "morePending": False}
    assert len(order_events.wait_for(3, timeout=0.5)) == 2  # each arrived once


def test_a_young_order_is_left_to_its_own_request(orders_gateway, product, monkeypatch):
    point(monkeypatch, "LAMBDA", closed_port_url())
    order = body(orders_gateway().post("/api/pedidos", {**ORDER, "productoId": product["id"]}))
    swept = sweep(every(), grace=SWEEP_GRACE)()
    assert swept == {"republished": 0, "morePending": False}
    assert pending_ids(every()) == [order["id"]]


def test_a_published_event_leaves_nothing_pending(orders_api, order_events, product):
    order = body(orders_api.post("/api/pedidos", {**ORDER, "productoId": product["id"]}))
    assert [event["pedidoId"] for event in order_events.wait_for(1)] == [order["id"]]
    assert pending_ids(every()) == []
