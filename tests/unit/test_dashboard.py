"""The dashboard's plain rules (docs/api.md#dashboard): what an item adds to the figures,
a run of changes applied once whatever is delivered twice or replayed, and the answer
made of the counters at an instant (the late shipments by the clock)."""

from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal

import pytest

from common.dashboard import layout
from common.platform.clock import to_iso
from common.platform.history import Entry
from dashboard import rules
from dashboard.rules import Stored
from dashboard_figures import service
from dashboard_figures.figures import Change, Contended, Counted, Newest, Record, plan
from dashboard_figures.shares import (
    NOTHING,
    ORDER,
    PRODUCT,
    SHIPMENT,
    order_share,
    product_share,
    shipment_share,
)
from inventory.rules import Product
from orders import rules as order_rules
from orders.rules import Order
from shipping import rules as shipping_rules
from shipping.rules import Shipment

NOW = datetime(2026, 11, 27, 14, 30, 0)
STREAM = "arn:aws:dynamodb:us-east-1:1:table/OrdersTable/stream/2026-11-27T00:00:00.000"


def order(ident=1, status="PENDIENTE", total="19.99", created=NOW) -> Order:
    return Order(
        id=ident,
        user_id=3,
        user_email="ana@example.com",
        cliente_nombre="Ana",
        total=Decimal(total),
        status=status,
        tipo_pedido="NACIONAL",
        destino="Lima",
        observaciones=None,
        producto_id=1,
        cantidad=1,
        creado_en=to_iso(created),
    )


def shipment(ident=1, status="CREADO", due=NOW + timedelta(days=1)) -> Shipment:
    return Shipment(
        id=ident,
        pedido_id=1,
        status=status,
        tipo_envio="EXPRESS",
        transportista="Olva",
        guia_despecho=f"EXP-20261127-{ident:06d}",
        ruta_descripcion="Express prioritario — Lima",
        destino="Lima",
        fecha_estimada_entrega=to_iso(due),
        creado_en=to_iso(due - timedelta(days=1)),
    )


def product(ident=1, price="2.50", stock=10, threshold=5) -> Product:
    return Product(
        id=ident,
        sku=f"SKU-{ident}",
        nombre="Caja",
        precio_unitario=Decimal(price),
        stock_actual=stock,
        umbral_minimo=threshold,
        bodega=None,
        descripcion=None,
    )


def order_change(made: Order, sequence: int | None = None, stream=STREAM) -> Change:
    record = Record(stream, sequence) if sequence is not None else None
    return Change(ORDER, made.id, order_share(made), {"id": made.id, "status": made.status}, record)


class Memory:
    """The figures table as the figures function's store reads and writes it: what a
    plan writes (shares and lists on the condition they are as read, counters added)."""

    def __init__(self):
        self.shares: dict = {}
        self.lists: dict = {}
        self.counters: dict[int, dict] = {}
        self.due: dict[str, dict] = {}
        self.conflicts = 0  # the next writes to refuse, as a concurrent writer would make them

    def read(self, changes, shard):
        return (
            {c.key: self.shares[c.key] for c in changes if c.key in self.shares},
            dict(self.lists),
            dict(self.counters.get(shard, {})),
        )

    def write(self, moved, shard):
        if self.conflicts:
            self.conflicts -= 1
            raise Contended("written meanwhile")
        for key, (held, new) in moved.shares.items():
            assert self.shares.get(key, Counted()).version == held.version
            self.shares[key] = replace(new, version=held.version + 1)
        for key, (held, new) in moved.lists.items():
            self.lists[key] = replace(new, version=held.version + 1)
        counter = self.counters.setdefault(shard, {})
        for name, change in moved.counters.items():
            counter[name] = counter.get(name, Decimal(0)) + change
        for name in moved.stale:
            counter.pop(name, None)
        for key, entries in moved.due_set.items():
            self.due.setdefault(key, {}).update(entries)
        for key, entries in moved.due_removed.items():
            for entry in entries:
                self.due.get(key, {}).pop(entry, None)

    def stored(self, now=NOW) -> Stored:
        return Stored(
            counters=list(self.counters.values()),
            due_now=[self.due.get(key, {}) for key in layout.due_keys(layout.hour_at(now))],
            newest={
                kind: [list(self.lists.get(k, Newest()).items) for k in layout.list_keys(kind)]
                for kind in (layout.ORDERS, layout.SHIPMENTS)
            },
        )

    def answer(self, now=NOW) -> dict:
        return rules.answer(self.stored(now), {}, now)


def applied(memory: Memory, *changes: Change, now=NOW) -> Memory:
    service.apply(list(changes), memory, lambda: now)
    return memory


# -- what an item adds --------------------------------------------------------------------


def test_the_statuses_are_the_services_own():
    assert rules.ORDER_STATUSES == order_rules.STATUSES
    assert rules.SHIPMENT_STATUSES == shipping_rules.STATUSES


def test_an_order_adds_its_status_and_its_day_and_a_cancelled_one_leaves_the_days_total():
    assert order_share(order()).counts == {
        "pedidos:PENDIENTE": 1,
        "dia:2026-11-27:pedidos": 1,
        "dia:2026-11-27:total": Decimal("19.99"),
    }
    assert order_share(order(status="CANCELADO")).counts == {
        "pedidos:CANCELADO": 1,
        "dia:2026-11-27:pedidos": 1,
    }


def test_a_product_adds_its_stocks_value_and_its_alert():
    assert product_share(product(price="2.50", stock=10, threshold=5)).counts == {
        "productos": 1,
        "valorStock": Decimal("25.00"),
        # every unit in PRINCIPAL: its units and their value, by warehouse
        "bodega:1:unidades": 10,
        "bodega:1:valor": Decimal("25.00"),
    }
    assert product_share(product(stock=4, threshold=5)).counts == {
        "productos": 1,
        "enAlerta": 1,
        "valorStock": Decimal("10.00"),
        "bodega:1:unidades": 4,
        "bodega:1:valor": Decimal("10.00"),
    }


def test_a_product_adds_its_units_in_each_warehouse():
    from common.stock.records import StockRow

    rows = (StockRow(bodega_id=1, stock_actual=3), StockRow(bodega_id=4, stock_actual=7))
    spread = replace(product(price="2", stock=10), existencias=rows)
    counts = product_share(spread).counts
    assert (counts["bodega:1:unidades"], counts["bodega:4:unidades"]) == (3, 7)
    assert (counts["bodega:1:valor"], counts["bodega:4:valor"]) == (6, 14)
    assert counts["valorStock"] == counts["bodega:1:valor"] + counts["bodega:4:valor"]
    answer = rules.answer(
        rules.Stored(counters=[counts], due_now=[], codes={1: "PRINCIPAL", 4: "NORTE"}),
        {},
        NOW,
    )
    assert answer["bodegas"] == [
        {"bodegaId": 1, "codigo": "PRINCIPAL", "unidades": 3, "valor": 6},
        {"bodegaId": 4, "codigo": "NORTE", "unidades": 7, "valor": 14},
    ]
    assert answer["productos"]["bodegas"] == answer["bodegas"]


def test_a_shipment_is_due_in_its_hour_until_delivered_on_time_or_late():
    made = shipment()
    due = to_iso(NOW + timedelta(days=1))
    assert shipment_share(made, None).counts == {"envios:CREADO": 1, "vence:2026-11-28T14": 1}
    assert shipment_share(made, None).due == due
    delivered = replace(made, status="ENTREGADO")
    assert shipment_share(delivered, to_iso(NOW)).counts == {
        "envios:ENTREGADO": 1,
        "entregadosATiempo": 1,
    }
    assert shipment_share(delivered, due).counts["entregadosATiempo"] == 1  # on the dot
    late = shipment_share(delivered, to_iso(NOW + timedelta(days=2)))
    assert late.counts == {"envios:ENTREGADO": 1} and late.due is None


# -- changes applied once -------------------------------------------------------------------


def test_a_status_change_moves_one_from_a_status_to_another():
    memory = applied(Memory(), order_change(order(), 1), order_change(order(status="APROBADO"), 2))
    figures = memory.answer()["pedidos"]
    assert figures["total"] == 1
    assert figures["porEstado"] == {
        "PENDIENTE": 0,
        "APROBADO": 1,
        "EN_ENVIO": 0,
        "ENTREGADO": 0,
        "CANCELADO": 0,
    }


def test_a_record_delivered_twice_counts_once_and_an_earlier_one_replayed_changes_nothing():
    memory = Memory()
    first, moved = order_change(order(), 1), order_change(order(status="CANCELADO"), 2)
    applied(memory, first, moved)
    before = memory.answer()
    applied(memory, first, moved)  # the batch retried: both again
    applied(memory, first)  # the first alone (a bisected retry)
    assert memory.answer() == before
    assert before["pedidos"]["porEstado"]["CANCELADO"] == 1
    assert before["ventasPorDia"][-1] == {"fecha": "2026-11-27", "pedidos": 1, "total": 0}


def test_a_record_of_a_new_stream_is_applied_even_with_a_lower_sequence_number():
    """A restarted local emulator's streams begin their numbers again."""
    memory = applied(Memory(), order_change(order(), 500))
    applied(memory, order_change(order(status="APROBADO"), 1, stream=STREAM + "-2"))
    assert memory.answer()["pedidos"]["porEstado"]["APROBADO"] == 1


def test_a_backfill_counts_what_the_stream_did_not_and_nothing_twice():
    memory = applied(Memory(), order_change(order(1), 1))
    # The backfill reads both items; the first is counted already.
    applied(memory, order_change(order(1)), order_change(order(2)))
    assert memory.answer()["pedidos"]["total"] == 2
    # The stream then delivers the second's creation: counted already.
    applied(memory, order_change(order(2), 2))
    assert memory.answer()["pedidos"]["total"] == 2


def test_a_product_deleted_leaves_the_figures_and_its_share_is_kept_as_nothing():
    memory = applied(
        Memory(), Change(PRODUCT, 1, product_share(product()), None, Record(STREAM, 1))
    )
    applied(memory, Change(PRODUCT, 1, NOTHING, None, Record(STREAM, 2)))
    assert memory.answer()["productos"] == {
        "total": 0,
        "enAlerta": 0,
        "valorStock": 0,
        "bodegas": [],
    }
    assert memory.shares[(PRODUCT, 1)].share == NOTHING
    # Even one never counted: a backfill that read it before it went finds it gone.
    applied(memory, Change(PRODUCT, 2, NOTHING, None, Record(STREAM, 3)))
    assert memory.shares[(PRODUCT, 2)].version == 1
    applied(memory, Change(PRODUCT, 2, product_share(product(2))))  # that backfill
    assert memory.answer()["productos"]["total"] == 1  # its write was of a later state


def test_a_run_written_meanwhile_by_another_writer_is_made_again_from_a_new_read():
    memory = Memory()
    memory.conflicts = 2
    applied(memory, order_change(order(), 1))
    assert memory.answer()["pedidos"]["total"] == 1
    memory.conflicts = service.MAX_ATTEMPTS
    with pytest.raises(RuntimeError, match="kept changing"):
        applied(memory, order_change(order(2), 2))


def test_the_newest_are_kept_per_list_shard_with_their_current_state():
    changes = [order_change(order(ident), ident) for ident in range(1, 60)]
    memory = applied(Memory(), *changes)
    newest = memory.answer()["pedidos"]["ultimos"]
    assert [item["id"] for item in newest] == [59, 58, 57, 56, 55]
    applied(memory, order_change(order(57, status="APROBADO"), 100))
    assert memory.answer()["pedidos"]["ultimos"][2] == {"id": 57, "status": "APROBADO"}
    # An old order's change does not touch the list it is not in (its shard's newest
    # five are 57 to 25).
    moved = plan([order_change(order(1, status="APROBADO"), 101)], {}, memory.lists, {}, NOW)
    assert moved.lists == {}


def test_an_erasure_reaches_the_newest_lists_though_no_figure_moves():
    """The lists keep each order as the API shows it, personal fields too: the erasure's
    write (the same status and total, the person's fields null) replaces the copy, so the
    dashboard shows nothing of an erased person (docs/personal-data.md)."""
    shown = {"id": 7, "status": "ENTREGADO", "userEmail": "ana@example.com", "destino": "Lima"}
    made = order(7, status="ENTREGADO")
    memory = applied(Memory(), Change(ORDER, 7, order_share(made), shown, Record(STREAM, 1)))
    erased = {**shown, "userEmail": None, "destino": None}
    applied(memory, Change(ORDER, 7, order_share(made), erased, Record(STREAM, 2)))
    assert memory.answer()["pedidos"]["ultimos"] == [erased]
    assert "ana@example.com" not in repr(memory.lists)


def test_past_days_and_hours_are_neither_added_to_nor_kept():
    old = NOW - timedelta(days=layout.PAST_DAYS + 1)
    moved = plan(
        [order_change(order(created=old))],
        {},
        {},
        {"dia:2026-10-01:total": Decimal(5), "vence:2026-11-27T11": Decimal(1), "productos": 1},
        NOW,
    )
    assert moved.counters == {"pedidos:PENDIENTE": 1}
    assert moved.stale == ["dia:2026-10-01:total", "vence:2026-11-27T11"]


# -- the answer at an instant ---------------------------------------------------------------


def test_an_empty_platform_has_every_status_every_day_and_no_on_time_share():
    answer = rules.answer(Stored([], []), {"inventario": "UP"}, NOW)
    assert answer["pedidos"] == {
        "total": 0,
        "porEstado": dict.fromkeys(order_rules.STATUSES, 0),
        "ultimos": [],
    }
    assert answer["envios"]["porEstado"] == dict.fromkeys(shipping_rules.STATUSES, 0)
    assert answer["envios"]["entregadosATiempo"] is None
    assert answer["envios"]["atrasados"] == 0
    days = answer["ventasPorDia"]
    assert [day["fecha"] for day in days] == [
        (NOW - timedelta(days=back)).strftime("%Y-%m-%d") for back in range(13, -1, -1)
    ]
    assert answer["servicios"] == {
        "inventario": "UP",
        "pedidos": "DOWN",
        "envios": "DOWN",
        "notificaciones": "DOWN",
    }
    assert answer["generadoEn"] == to_iso(NOW)


def test_a_shipment_becomes_late_when_its_estimate_passes_with_nothing_written():
    due = NOW + timedelta(minutes=10)
    memory = Memory()
    for ident, when in enumerate(
        [due, due + timedelta(hours=1), NOW + timedelta(days=1), NOW - timedelta(hours=1)], 1
    ):
        made = shipment(ident, due=when)
        applied(memory, Change(SHIPMENT, ident, shipment_share(made, None), {"id": ident}))
    # The one due an hour ago was late from the start; at each instant after, the rest in
    # turn, by their own estimate (within their hour) or their hour's counter.
    assert memory.answer(NOW)["envios"]["atrasados"] == 1
    assert memory.answer(due - timedelta(microseconds=1))["envios"]["atrasados"] == 1
    assert memory.answer(due + timedelta(microseconds=1))["envios"]["atrasados"] == 2
    assert memory.answer(due + timedelta(hours=2))["envios"]["atrasados"] == 3
    assert memory.answer(NOW + timedelta(days=2))["envios"]["atrasados"] == 4


def test_delivery_takes_a_shipment_out_of_the_late_and_moving_it_back_puts_it_in_again():
    made = shipment(1, due=NOW - timedelta(minutes=5))
    memory = applied(Memory(), Change(SHIPMENT, 1, shipment_share(made, None), {"id": 1}))
    assert memory.answer()["envios"]["atrasados"] == 1
    delivered = replace(made, status="ENTREGADO")
    applied(memory, Change(SHIPMENT, 1, shipment_share(delivered, to_iso(NOW)), {"id": 1}))
    figures = memory.answer()["envios"]
    assert (figures["atrasados"], figures["entregadosATiempo"]) == (0, 0.0)
    back = replace(made, status="EN_RUTA")
    applied(memory, Change(SHIPMENT, 1, shipment_share(back, None), {"id": 1}))
    figures = memory.answer()["envios"]
    assert (figures["atrasados"], figures["entregadosATiempo"]) == (1, None)


def test_the_on_time_share_is_of_the_delivered_shipments():
    memory = Memory()
    for ident, delivered_at in enumerate([NOW, NOW, NOW + timedelta(days=3)], 1):
        made = replace(shipment(ident), status="ENTREGADO")
        share = shipment_share(made, to_iso(delivered_at))
        applied(memory, Change(SHIPMENT, ident, share, {"id": ident}))
    assert memory.answer()["envios"]["entregadosATiempo"] == 2 / 3


def test_history_entries_are_what_the_delivery_time_is_read_from():
    # The figures function reads it off the shipment's history (its repository); the
    # entry's own format is the API's.
    assert Entry("ENTREGADO", to_iso(NOW), "operator").fecha == "2026-11-27T14:30:00.000000"
