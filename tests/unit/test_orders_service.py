"""Order use cases with in-memory storage, a scripted stock check and a recording publisher."""

import inspect
import typing
from datetime import datetime
from decimal import Decimal

import pytest

from common.http.service_calls import OnBehalf
from common.identity.callers import SYSTEM as OPERATOR
from common.orders.outbox import republish_pending
from common.platform.errors import Invalid, Unavailable
from common.stock.client import InventoryUnavailable, StockAnswer
from orders import service
from tests.support.memory import InMemoryOrders, RecordingOutcomes, RecordingPublisher

BODY = {
    "userId": 7,
    "userEmail": "ana@example.com",
    "clienteNombre": "Ana",
    "total": Decimal("59.97"),
    "tipoPedido": "NACIONAL",
    "destino": "Bogotá",
    "productoId": 3,
    "cantidad": 2,
}
NOW = datetime(2026, 11, 22, 9, 30, 0, 500)


class StockCheck:
    """Answers every check with `answer` (or raises it), and remembers what was asked: the
    contract's check of one product, as when it is given the inventory's URL."""

    checks_lines = False

    def __init__(self, answer=StockAnswer.AVAILABLE):
        self.answer = answer
        self.asked: list[tuple[int, int]] = []

    def check(self, producto_id: int, cantidad: int, on_behalf) -> StockAnswer:
        self.asked.append((producto_id, cantidad))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def listed(orders) -> list:
    return service.list_orders(orders, OPERATOR, 0, 1000, None).items


@pytest.fixture
def orders():
    return InMemoryOrders()


@pytest.fixture
def events():
    return RecordingPublisher()


@pytest.fixture
def outcomes():
    return RecordingOutcomes()


def place(orders, events, stock=None, body=BODY, outcomes=None, caller=OPERATOR):
    return service.place_order(
        orders,
        stock or StockCheck(),
        events,
        outcomes or RecordingOutcomes(),
        service.order_to_place(OnBehalf(caller, token=None, gateway_url=""), body, NOW),
    )


def test_a_stocked_order_is_saved_pending_and_its_event_published(orders, events):
    stock = StockCheck()
    order = place(orders, events, stock)
    assert stock.asked == [(3, 2)]
    assert (order.id, order.status, order.creado_en) == (
        1,
        "PENDIENTE",
        "2026-11-22T09:30:00.000500",
    )
    assert order.total == Decimal("59.97")
    assert service.get_order(orders, OPERATOR, 1) == order
    assert listed(orders) == [order]
    assert events.published == [
        {
            "pedidoId": 1,
            "userEmail": "ana@example.com",
            "total": Decimal("59.97"),
            "tipoPedido": "NACIONAL",
        }
    ]


def test_an_invalid_order_is_refused_before_the_stock_check(orders, events):
    stock = StockCheck()
    with pytest.raises(Invalid) as err:
        place(orders, events, stock, {**BODY, "cantidad": 0})
    assert err.value.details == [
        {"field": "cantidad", "message": "must be an integer from 1 to 2147483647"}
    ]
    assert stock.asked == [] and listed(orders) == [] and events.published == []


@pytest.mark.parametrize(
    "answer, code",
    [
        (StockAnswer.INSUFFICIENT, "INSUFFICIENT_STOCK"),
        (StockAnswer.UNKNOWN_PRODUCT, "PRODUCT_NOT_FOUND"),
        (StockAnswer.NOT_CONFIRMED, "STOCK_NOT_CONFIRMED"),
    ],
)
def test_refused_stock_saves_nothing_and_publishes_nothing(orders, events, outcomes, answer, code):
    with pytest.raises(Invalid) as err:
        place(orders, events, StockCheck(answer), outcomes=outcomes)
    assert err.value.code == code and "3" in err.value.message
    assert listed(orders) == [] and events.published == []
    assert outcomes.counted == [code]  # refused, by reason


def test_an_open_breaker_is_unavailable_with_its_retry_time(orders, events, outcomes):
    with pytest.raises(Unavailable) as err:
        place(
            orders,
            events,
            StockCheck(InventoryUnavailable(retry_after_seconds=12)),
            outcomes=outcomes,
        )
    assert (err.value.code, err.value.retry_after_seconds) == ("INVENTORY_UNAVAILABLE", 12)
    assert listed(orders) == [] and events.published == []
    assert outcomes.counted == ["INVENTORY_UNAVAILABLE"]


def test_a_placed_order_is_counted_and_an_invalid_one_is_not(orders, events, outcomes):
    place(orders, events, outcomes=outcomes)
    with pytest.raises(Invalid):
        place(orders, events, body={**BODY, "cantidad": 0}, outcomes=outcomes)
    assert outcomes.counted == ["placed"]


def test_an_order_is_saved_with_its_event_pending_until_it_is_published(orders, events):
    order = place(orders, events)
    assert orders.pending == set()  # published by its own request: off the list
    events.down = True
    unpublished = place(orders, events)
    assert service.get_order(orders, OPERATOR, unpublished.id) == unpublished  # the order stands
    assert orders.pending == {unpublished.id} and len(events.published) == 1
    assert order.id != unpublished.id


LATER = datetime(2026, 11, 22, 10, 0, 0)  # every order of these tests is older


def test_the_sweep_publishes_pending_events_once_and_clears_them(orders, events):
    events.down = True
    first, second = place(orders, events), place(orders, events)
    assert republish_pending(orders, events, 10, LATER) == (0, True, True)
    events.down = False
    assert republish_pending(orders, events, 10, LATER) == (2, False, False)
    assert [event["pedidoId"] for event in events.published] == [first.id, second.id]
    assert orders.pending == set()
    assert republish_pending(orders, events, 10, LATER) == (0, False, False)
    assert len(events.published) == 2


def test_a_sweep_takes_at_most_its_batch_oldest_first(orders, events):
    events.down = True
    placed = [place(orders, events) for _ in range(3)]
    events.down = False
    assert republish_pending(orders, events, 2, LATER) == (2, False, True)
    assert orders.pending == {placed[2].id}


def test_the_sweep_leaves_a_young_order_to_its_own_request(orders, events):
    events.down = True
    order = place(orders, events)  # created at NOW
    events.down = False
    assert republish_pending(orders, events, 10, NOW) == (0, False, False)
    assert orders.pending == {order.id} and events.published == []


@pytest.mark.parametrize(
    "use_case, command",
    [(service.place_order, "PlaceOrder"), (service.change_status, "ChangeStatus")],
)
def test_a_use_case_that_changes_an_order_takes_what_was_asked_as_one_command(use_case, command):
    """Its collaborators, then the request as one object (orders.commands), which the
    routes build and every step below reads, rather than 7 or 8 arguments."""
    from orders import commands

    hints = typing.get_type_hints(use_case)
    taken = [name for name, kind in hints.items() if kind is getattr(commands, command)]
    assert taken == ["command"]
    assert len(inspect.signature(use_case).parameters) <= 5
