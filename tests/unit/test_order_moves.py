"""The lifecycle moving stock (docs/api.md#stock-follows-orders) and the history it leaves
(docs/api.md#history): orders.service.change_status against in-memory orders and the
inventory's own stock rules on an in-memory catalog."""

import dataclasses
import threading
from datetime import datetime

import pytest

from common.http.service_calls import OnBehalf
from common.identity.callers import CUSTOMER, OPERATOR, Caller
from common.platform.errors import Conflict, Unavailable
from common.stock import moves as stock
from common.stock.client import NotHeld
from inventory import rules as inventory_rules
from orders import service
from orders.commands import ChangeStatus
from tests.support.memory import (
    InMemoryInventory,
    InMemoryOrders,
    InMemoryProducts,
    InMemoryStock,
    RecordingOutcomes,
    RecordingPublisher,
)
from tests.support.samples import ANA_ORDER

ADMIN = Caller("ops@example.com", OPERATOR)
ANA = Caller("ana@example.com", CUSTOMER, 7)
PLACED = datetime(2026, 11, 22, 9, 30)
MOVED = datetime(2026, 11, 22, 10, 0)


def no_pause(seconds: float) -> None:
    pass


class World:
    def __init__(self, stock_actual: int = 5):
        self.products = InMemoryProducts()
        self.stock = InMemoryStock(self.products)
        self.inventory = InMemoryInventory(self.stock)
        self.orders = InMemoryOrders()
        fields = inventory_rules.parse_product(
            {
                "nombre": "Caja",
                "sku": "CJ-1",
                "precioUnitario": 3,
                "stockActual": stock_actual,
                "umbralMinimo": 2,
            }
        )
        self.product = inventory_rules.product(self.products.next_id(), fields)
        self.products.add(self.product)

    def place(self, cantidad: int = 1, caller: Caller = ANA):
        body = {**ANA_ORDER, "productoId": self.product.id, "cantidad": cantidad}
        return service.place_order(
            self.orders,
            self.inventory,
            RecordingPublisher(),
            RecordingOutcomes(),
            service.order_to_place(OnBehalf(caller, token=None, gateway_url=""), body, PLACED),
        )

    def move(self, order_id: int, status: str, caller: Caller = ADMIN):
        asked = ChangeStatus(order_id=order_id, status=status, caller=caller, at=MOVED)
        return service.change_status(self.orders, self.inventory, asked, pause=no_pause)

    def units(self) -> tuple[int, int, int]:
        p = self.products.get(self.product.id)
        return p.stock_actual, p.stock_reservado, p.stock_disponible


def test_approving_reserves_shipping_takes_out_and_delivering_moves_nothing():
    world = World(stock_actual=5)
    order = world.place(cantidad=2)
    assert world.units() == (5, 0, 5)  # a pending order is a request
    world.move(order.id, "APROBADO")
    assert world.units() == (5, 2, 3)
    world.move(order.id, "EN_ENVIO")
    assert world.units() == (3, 0, 3)
    world.move(order.id, "ENTREGADO")
    assert world.units() == (3, 0, 3)


def test_cancelling_an_approved_order_gives_its_units_back_and_a_pending_one_moves_none():
    world = World(stock_actual=5)
    approved, pending = world.place(cantidad=2), world.place(cantidad=1)
    world.move(approved.id, "APROBADO")
    world.move(approved.id, "CANCELADO", caller=ANA)  # a customer cancels their own
    world.move(pending.id, "CANCELADO")
    assert world.units() == (5, 0, 5)


def test_an_approval_beyond_what_is_available_is_refused_and_changes_nothing():
    world = World(stock_actual=3)
    first, second = world.place(cantidad=2), world.place(cantidad=2)
    world.move(first.id, "APROBADO")
    with pytest.raises(Conflict) as refused:
        world.move(second.id, "APROBADO")
    assert refused.value.code == "INSUFFICIENT_STOCK"
    message = f"only 1 of product {world.product.id} available"
    assert refused.value.details == [
        {"field": "cantidad", "message": message},
        {"field": "lineas[0].cantidad", "message": message},
    ]
    assert world.orders.get(second.id).status == "PENDIENTE"
    assert world.units() == (3, 2, 1)
    assert [e.status for e in service.order_history(world.orders, ADMIN, second.id)] == [
        "PENDIENTE"
    ]


def test_a_same_state_patch_reserves_nothing_more_and_records_nothing():
    world = World(stock_actual=5)
    order = world.place(cantidad=2)
    world.move(order.id, "APROBADO")
    world.move(order.id, "APROBADO")
    assert world.units() == (5, 2, 3)
    history = service.order_history(world.orders, ADMIN, order.id)
    assert [(e.status, e.fecha, e.rol) for e in history] == [
        ("PENDIENTE", "2026-11-22T09:30:00.000000", "customer"),
        ("APROBADO", "2026-11-22T10:00:00.000000", "operator"),
    ]


def test_an_unreachable_inventory_is_unavailable_and_changes_nothing():
    world = World(stock_actual=5)
    order = world.place()
    world.inventory.down = True
    with pytest.raises(Unavailable) as refused:
        world.move(order.id, "APROBADO")
    assert (refused.value.code, refused.value.retry_after_seconds) == ("INVENTORY_UNAVAILABLE", 5)
    assert world.orders.get(order.id).status == "PENDIENTE"
    assert world.units() == (5, 0, 5)
    # a move that makes no stock move needs no inventory
    assert world.move(order.id, "CANCELADO").status == "CANCELADO"


class LosingOnce(InMemoryOrders):
    """Orders whose next status write loses to `winner`, written just before it."""

    def __init__(self):
        super().__init__()
        self.winner: tuple[str, Caller] | None = None
        self.world: World | None = None

    def set_status(self, order, target, change, lines=None):
        if self.winner is not None and self.world is not None:
            status, caller = self.winner
            self.winner = None
            self.world.move(order.id, status, caller)
        return super().set_status(order, target, change, lines)


def losing_world(stock_actual: int = 5) -> tuple[World, LosingOnce]:
    world = World(stock_actual)
    world.orders = orders = LosingOnce()
    orders.world = world
    return world, orders


def test_an_approval_that_loses_to_a_cancel_gives_its_reservation_back():
    world, orders = losing_world()
    order = world.place(cantidad=2)
    orders.winner = ("CANCELADO", ANA)
    with pytest.raises(Conflict) as refused:
        world.move(order.id, "APROBADO")
    assert refused.value.code == "INVALID_TRANSITION"
    assert orders.get(order.id).status == "CANCELADO"
    assert world.units() == (5, 0, 5)


def test_a_cancel_that_loses_to_an_approval_cancels_the_approved_order():
    world, orders = losing_world()
    order = world.place(cantidad=2)
    orders.winner = ("APROBADO", ADMIN)
    assert world.move(order.id, "CANCELADO", caller=ANA).status == "CANCELADO"
    assert world.units() == (5, 0, 5)
    history = [(e.status, e.rol) for e in service.order_history(orders, ADMIN, order.id)]
    assert history == [
        ("PENDIENTE", "customer"),
        ("APROBADO", "operator"),
        ("CANCELADO", "customer"),
    ]


def test_two_approvals_of_one_order_reserve_it_once_and_the_loser_keeps_the_winners_units():
    world, orders = losing_world()
    order = world.place(cantidad=2)
    orders.winner = ("APROBADO", ADMIN)
    assert world.move(order.id, "APROBADO").status == "APROBADO"
    assert world.units() == (5, 2, 3)
    assert world.stock.reservation(order.id).status == stock.HELD


def test_a_ship_racing_a_cancel_applies_exactly_one_of_them():
    world = World(stock_actual=5)
    order = world.place(cantidad=2)
    world.move(order.id, "APROBADO")
    answers: list[str] = []

    def move(status):
        try:
            answers.append(world.move(order.id, status).status)
        except Conflict as refused:
            answers.append(refused.code)

    racers = [threading.Thread(target=move, args=(s,)) for s in ("EN_ENVIO", "CANCELADO")]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    final = world.orders.get(order.id).status
    assert sorted(answers) == sorted([final, "INVALID_TRANSITION"])
    assert world.units() == ((3, 0, 3) if final == "EN_ENVIO" else (5, 0, 5))


def test_concurrent_approvals_never_oversell():
    world = World(stock_actual=3)
    orders = [world.place() for _ in range(8)]
    answers: list[str] = []

    def approve(order_id):
        try:
            answers.append(world.move(order_id, "APROBADO").status)
        except Conflict as refused:
            answers.append(refused.code)

    racers = [threading.Thread(target=approve, args=(o.id,)) for o in orders]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    assert sorted(answers) == ["APROBADO"] * 3 + ["INSUFFICIENT_STOCK"] * 5
    assert world.units() == (3, 3, 0)
    assert sum(r.cantidad for r in world.stock.holding(world.product.id)) == 3


def test_a_move_whose_order_keeps_changing_gives_up_with_a_conflict():
    world = World()
    order = world.place()

    class Moving(InMemoryInventory):
        def move(self, move, order, request_id=None):
            raise NotHeld(order.id)  # another move holds or took the units, every time

    with pytest.raises(Conflict) as refused:
        approve = ChangeStatus(order_id=order.id, status="APROBADO", caller=ADMIN, at=MOVED)
        service.change_status(world.orders, Moving(world.stock), approve, pause=no_pause)
    assert refused.value.code == "CONCURRENT_UPDATE"
    assert world.orders.get(order.id).status == "PENDIENTE"


class PartLeavingFirst(InMemoryOrders):
    """Orders whose next status write loses to the order's first part on the road
    (docs/api.md#shipments-of-parts): moved to EN_ENVIO by the platform, its lines
    counting only that part's units on their way."""

    def __init__(self):
        super().__init__()
        self.armed = False

    def set_status(self, order, target, change, lines=None):
        if self.armed:
            self.armed = False
            current = self.get(order.id)
            part = dataclasses.replace(current.lineas[0], cantidad_enviada=1)
            super().set_status(current, "EN_ENVIO", change, (part,))
        return super().set_status(order, target, change, lines)


def test_an_orders_ship_losing_to_its_first_part_counts_every_unit_on_its_way():
    world = World(stock_actual=5)
    world.orders = orders = PartLeavingFirst()
    order = world.place(cantidad=3)
    world.move(order.id, "APROBADO", ADMIN)
    orders.armed = True
    shipped = world.move(order.id, "EN_ENVIO", ADMIN)
    assert shipped.status == "EN_ENVIO"
    assert [line.cantidad_enviada for line in shipped.lineas] == [3]
    assert world.units() == (2, 0, 2)  # taken out once, every unit
