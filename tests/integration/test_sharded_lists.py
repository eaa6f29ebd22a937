"""Creates that share no hot key, and lists that still read as one (docs/api.md#lists,
docs/capacity.md): ids in blocks per environment, status and list keys over shards, and
pages merged back in id order. Against the emulator, through the repositories."""

import dataclasses
import itertools
import threading
from collections import Counter
from datetime import datetime

import pytest

from common.orders.model import STATUS_PROJECTION, STATUS_SHARDS, OrderModel
from common.platform import aws
from common.platform.history import Entry
from common.platform.settings import Cloud
from common.storage import shards
from common.storage import tables as storage
from orders import rules as order_rules
from orders.repository import OrderRepository
from shipping import rules as shipping_rules
from shipping.repository import ShipmentRepository
from shipping.tracking import patched
from tests.support.metering import metered

NOW = datetime(2026, 11, 22, 10, 0)
STATUSES = ("PENDIENTE", "APROBADO", "CANCELADO")


def pending_order(orders: OrderRepository, n: int) -> order_rules.Order:
    body = {
        "userId": n % 50 + 1,
        "userEmail": "a@b.co",
        "clienteNombre": "A",
        "total": 1,
        "tipoPedido": "NACIONAL",
        "destino": "Quito",
        "productoId": 2,
        "cantidad": 1,
    }
    made = order_rules.pending_order(order_rules.parse_order(body), orders.next_id(), NOW)
    return dataclasses.replace(made, status=STATUSES[made.id % len(STATUSES)])


def walk(repository, limit: int, **filters) -> list:
    """Every page from the first to the last."""
    pages, after = [], 0
    while after is not None:
        pages.append(repository.page(after, limit, **filters))
        after = pages[-1].resume_after
    return pages


@pytest.fixture
def environments(tables):
    """Four environments of the orders function: each its own repository (its own block
    of ids), as four Lambda environments have."""
    with aws.acting_as("OrdersFunction"):
        yield [OrderRepository(Cloud.from_env()) for _ in range(4)]


@pytest.fixture
def burst(environments):
    """240 orders created by 8 clients at once, two on each environment. The environments'
    ids come in blocks sized to how fast they go (common/storage/id_blocks.py): on a clock
    that moves a millisecond an id, they go as fast on a loaded machine as on an idle one
    (on a clock of seconds, a machine loaded ten times over took 155 counter writes)."""
    made: list = []
    lock, start = threading.Lock(), threading.Barrier(8)
    ticks = itertools.count()
    for environment in environments:
        blocks = environment._ids
        blocks._clock = lambda: next(ticks) / 1000

    def client(environment: OrderRepository, n: int):
        start.wait()
        for i in range(30):
            order = pending_order(environment, n * 30 + i)
            environment.add(order)
            with lock:
                made.append(order)

    with metered() as meter:
        threads = [
            threading.Thread(
                target=aws.acting_as("OrdersFunction")(client), args=(environments[n % 4], n)
            )
            for n in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return made, meter


def test_ids_from_several_environments_are_unique_and_take_few_counter_writes(burst):
    made, meter = burst
    ids = [order.id for order in made]
    assert len(ids) == len(set(ids)) == 240 and min(ids) >= 1
    # A block per environment's round of creates, not a counter write per create.
    assert meter.counter_writes < 240 / 4


def test_walking_after_a_burst_returns_every_order_once_without_empty_pages(environments, burst):
    made, _ = burst
    # Each environment leaves the tail of its last block unused: gaps in the ids that
    # a page must step over, not stop on.
    for limit in (7, 50):
        pages = walk(environments[0], limit)
        assert [o for page in pages for o in page.items] == sorted(made, key=lambda o: o.id)
        assert all(page.items for page in pages[:-1])
        pages = walk(environments[0], limit, status="APROBADO")
        assert [o for page in pages for o in page.items] == sorted(
            (o for o in made if o.status == "APROBADO"), key=lambda o: o.id
        )
        assert all(page.items for page in pages[:-1])


def stored(client) -> list[dict]:
    """Every order as stored, read with the test's own client."""
    return client.scan(TableName="OrdersTable", ConsistentRead=True)["Items"]


def test_a_status_is_written_over_all_its_shards_evenly(tables, environments, burst):
    made, _ = burst
    counts = Counter(item["statusShard"]["S"] for item in stored(tables))
    approved = [counts[key] for key in shards.keys("APROBADO", STATUS_SHARDS)]
    assert sum(approved) == sum(o.status == "APROBADO" for o in made)
    # No shard takes more than twice its share (the unused tails of blocks make the
    # spread a little uneven; one partition would take it all).
    assert max(approved) <= 2 * sum(approved) / STATUS_SHARDS


def test_every_order_is_in_the_whole_list_index_under_its_shard(tables, environments, burst):
    made, _ = burst
    shards_of = {int(item["id"]["N"]): int(item["shard"]["N"]) for item in stored(tables)}
    assert shards_of == {o.id: o.id % storage.LIST_SHARDS for o in made}


def test_a_status_change_moves_an_order_to_the_other_status_list(environments):
    orders = environments[0]
    order = pending_order(orders, 0)
    orders.add(order)
    orders.set_status(order, "APROBADO", Entry("APROBADO", "t1", "operator"))
    assert [o.id for o in orders.page(0, 10, status="APROBADO").items] == [order.id]
    assert orders.page(0, 10, status="PENDIENTE").items == []


def test_a_shipment_status_change_moves_it_to_the_other_status_list(tables):
    with aws.acting_as("ShippingFunction"):
        shipments = ShipmentRepository(Cloud.from_env())
        request = shipping_rules.parse_shipment(
            {"pedidoId": 4, "tipoEnvio": "TERRESTRE", "transportista": "T", "destino": "Cali"}
        )
        shipment = shipping_rules.created_shipment(request, shipments.next_id(), NOW)
        shipments.add(shipment)
        shipments.move(
            shipment.id,
            lambda _before: patched("EN_RUTA"),
            lambda status: Entry(status, "t1", "operator"),
        )
        assert [s.id for s in shipments.page(0, 10, status="EN_RUTA").items] == [shipment.id]
        assert shipments.page(0, 10, status=shipment.status).items == []


def test_the_status_index_holds_every_field_of_an_order_as_before_lines_and_not_the_outbox():
    # The index projects every field an order had before lines (a projection cannot
    # change in place): a page of a status reads its orders by key since, lines and all.
    # The outbox mark is left out, so that taking an order off the outbox does not write
    # its status shard again. Who placed it is read by its history alone, from the item;
    # what its returns hold, with its lines (docs/api.md#returns).
    fields = {
        OrderModel.get_attributes()[f.name].attr_name for f in dataclasses.fields(order_rules.Order)
    } - {"id", "creadoPor", "lineas", "estrategia", "devoluciones", "devolucionesVersion"}
    assert set(STATUS_PROJECTION) == fields
    assert "eventoPendiente" not in STATUS_PROJECTION
