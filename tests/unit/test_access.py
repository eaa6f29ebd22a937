"""Who may do what (docs/api.md#who-may-do-what): each service's rules, per rule and role,
and the use cases that apply them, against in-memory storage."""

import dataclasses
from datetime import datetime

import pytest

from common.http.service_calls import OnBehalf
from common.identity.callers import CUSTOMER, OPERATOR, Caller
from common.platform.errors import Forbidden, Invalid, NotFound
from common.stock.client import StockAnswer
from inventory import access as inventory_access
from orders import access as orders_access
from orders import service as orders
from orders.commands import ChangeStatus
from orders.rules import parse_order
from shipping import access as shipping_access
from shipping import service as shipping
from shipping.rules import parse_shipment
from tests.support.memory import (
    InMemoryInventory,
    InMemoryOrders,
    InMemoryProducts,
    InMemoryShipments,
    InMemoryStock,
    RecordingOutcomes,
    RecordingPublisher,
)
from tests.support.samples import ANA_ORDER

NOW = datetime(2026, 11, 22, 9, 30)
ADMIN = Caller("ops@example.com", OPERATOR)
ANA = Caller("ana@example.com", CUSTOMER, 7)
LUIS = Caller("luis@example.com", CUSTOMER, 8)
ORDER = ANA_ORDER
SHIPMENT = {"tipoEnvio": "EXPRESS", "transportista": "DHL", "destino": "Lima"}


# -- inventory: everyone reads the catalog, operators change it --------------------------


@pytest.mark.parametrize(
    "rule", [inventory_access.may_change_catalog, inventory_access.may_read_alerts]
)
def test_only_operators_change_the_catalog_or_read_its_alerts(rule):
    rule(ADMIN)
    with pytest.raises(Forbidden) as refused:
        rule(ANA)
    assert (refused.value.code, refused.value.details) == ("FORBIDDEN", [])


# -- orders -------------------------------------------------------------------------------


def test_a_customer_places_orders_for_themselves_only():
    orders_access.may_place(ANA, parse_order(ORDER))
    orders_access.may_place(ADMIN, parse_order({**ORDER, "userId": 99}))
    with pytest.raises(Forbidden):
        orders_access.may_place(ANA, parse_order({**ORDER, "userId": 8}))


@pytest.mark.parametrize(
    "status", ["APROBADO", "EN_ENVIO", "ENTREGADO", "PENDIENTE", "cancelado", "", None]
)
def test_a_customer_may_only_cancel(status):
    orders_access.may_move_to(ANA, "CANCELADO")
    orders_access.may_move_to(ADMIN, status)  # an operator's status is validated later
    with pytest.raises(Forbidden):
        orders_access.may_move_to(ANA, status)


class InStock:
    checks_lines = False

    def check(self, producto_id, cantidad, on_behalf):
        return StockAnswer.AVAILABLE


@pytest.fixture
def store():
    return InMemoryOrders()


def place(store, caller, body=ORDER):
    return orders.place_order(
        store,
        InStock(),
        RecordingPublisher(),
        RecordingOutcomes(),
        orders.order_to_place(OnBehalf(caller, token=None, gateway_url=""), body, NOW),
    )


def test_an_order_for_someone_else_is_refused_after_validation_and_saves_nothing(store):
    with pytest.raises(Invalid):  # a body that fails validation is still 400
        place(store, ANA, {**ORDER, "userId": 8, "total": -1})
    with pytest.raises(Forbidden):
        place(store, ANA, {**ORDER, "userId": 8})
    assert orders.list_orders(store, ADMIN, 0, 100, None).items == []


def test_a_customer_sees_only_their_own_orders(store):
    mine, theirs = place(store, ANA), place(store, LUIS, {**ORDER, "userId": 8})
    assert orders.get_order(store, ANA, mine.id) == mine
    with pytest.raises(NotFound) as hidden:
        orders.get_order(store, ANA, theirs.id)
    with pytest.raises(NotFound) as missing:
        orders.get_order(store, ANA, 99)
    # someone else's order reads exactly like one that does not exist
    assert hidden.value.message == f"Order {theirs.id} not found"
    assert (hidden.value.code, missing.value.message) == ("ORDER_NOT_FOUND", "Order 99 not found")
    assert orders.list_orders(store, ANA, 0, 100, None).items == [mine]
    assert orders.list_orders(store, LUIS, 0, 100, "PENDIENTE").items == [theirs]
    assert orders.list_orders(store, ADMIN, 0, 100, None).items == [mine, theirs]


def test_a_customer_cancels_their_own_order_and_no_one_elses(store):
    mine, theirs = place(store, ANA), place(store, LUIS, {**ORDER, "userId": 8})
    inventory = InMemoryInventory(InMemoryStock(InMemoryProducts()))
    cancel = ChangeStatus(order_id=mine.id, status="CANCELADO", caller=ANA, at=NOW)
    assert orders.change_status(store, inventory, cancel).status == "CANCELADO"
    with pytest.raises(NotFound):
        orders.change_status(store, inventory, dataclasses.replace(cancel, order_id=theirs.id))
    assert orders.get_order(store, ADMIN, theirs.id).status == "PENDIENTE"
    # and the history of someone else's order is as unknown as an order no one has
    assert [e.status for e in orders.order_history(store, ANA, mine.id)] == [
        "PENDIENTE",
        "CANCELADO",
    ]
    with pytest.raises(NotFound) as hidden:
        orders.order_history(store, ANA, theirs.id)
    assert hidden.value.message == f"Order {theirs.id} not found"


# -- shipping ------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", [shipping_access.may_create, shipping_access.may_change_status])
def test_only_operators_create_shipments_or_move_them(rule):
    rule(ADMIN)
    with pytest.raises(Forbidden):
        rule(LUIS)


def test_a_customer_follows_the_shipments_of_their_own_orders_only():
    store = InMemoryShipments()
    owners = {1: 7, 2: 8}  # order id -> its customer; order 3 unknown

    def create(pedido_id):
        return shipping.create_shipment(
            store, owners.get, parse_shipment({**SHIPMENT, "pedidoId": pedido_id}), NOW
        )

    mine, theirs, orphan = create(1), create(2), create(3)
    assert (mine.owner_id, theirs.owner_id, orphan.owner_id) == (7, 8, None)
    assert shipping.get_shipment(store, ANA, mine.id) == mine
    for hidden in (theirs, orphan):
        with pytest.raises(NotFound, match=f"Shipment {hidden.id} not found"):
            shipping.get_shipment(store, ANA, hidden.id)
    assert shipping.list_shipments(store, ANA, 0, 100, None, None).items == [mine]
    assert shipping.list_shipments(store, ANA, 0, 100, None, "2").items == []
    assert shipping.list_shipments(store, ANA, 0, 100, "CREADO", "1").items == [mine]
    assert shipping.list_shipments(store, ADMIN, 0, 100, None, None).items == [mine, theirs, orphan]
    for hidden in (theirs, orphan):
        with pytest.raises(NotFound, match=f"Shipment {hidden.id} not found"):
            shipping.shipment_history(store, ANA, hidden.id)
    assert [e.status for e in shipping.shipment_history(store, ANA, mine.id)] == ["CREADO"]
