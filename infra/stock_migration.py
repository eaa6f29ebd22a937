"""`make migrate-stock`: the data stored before warehouses and orders of several lines,
carried into them (docs/operations.md#warehouses-and-order-lines).

- PRINCIPAL (id 1), every stack's warehouse, written if it is not there.
- Every product's units and reservations into PRINCIPAL's row (its `existencias`), on the
  condition that the product is still as read (a write by the new code meanwhile did it).
- Every reservation of the one-item-per-order table into the stock ledger, as line 1 of
  its order, its units in PRINCIPAL, once.
- Every order its one line (`lineas`), as its status says it is (its units held in
  PRINCIPAL while it holds any, on their way once shipped), on the condition that its
  status and its lack of lines are as read.

The code reads the old forms meanwhile (a product stored before warehouses has every unit
in PRINCIPAL; an order stored before lines answers its one line; a reservation stored
before the ledger is carried into it when first read), so this may run after the deploy.
Each write is conditional on what it read: running it twice changes nothing the second
time, and it never undoes a write made meanwhile.

Without STAGE: the running local stack's tables (`make run` also runs it on the data it
restores at start). With STAGE=dev|prod: that deployed stack's, with your AWS credentials
(Scan, GetItem, Query, UpdateItem, PutItem, BatchGetItem on them).
"""

import argparse
from collections import Counter
from types import MappingProxyType

from pynamodb.exceptions import UpdateError

from common.orders.model import OrderModel
from common.orders.records import Order
from common.platform.settings import Cloud, table_env_var
from common.storage import tables as storage
from inventory.ledger_repository import StockItems
from inventory.model import ProductModel, ReservationModel
from inventory.warehouse_repository import WarehouseRepository

TABLES = (
    "ProductsTable",
    "StockReservationsTable",
    "StockLedgerTable",
    "WarehousesTable",
    "WarehouseCodesTable",
    "OrdersTable",
    "CountersTable",
)


def migrate(cloud: Cloud) -> Counter:
    """Everything carried over; how many items of each kind were written."""
    written: Counter = Counter()
    WarehouseRepository(cloud).ensure_principal()
    stock = StockItems(cloud)
    storage.bind(cloud, OrderModel)
    for item in ProductModel.scan(consistent_read=True):
        if item.existencias is None:
            stock.migrate_product(item)
            written["ProductsTable"] += 1
    for old in ReservationModel.scan(consistent_read=True):
        written["StockReservationsTable"] += int(stock.carry(old))  # once: False after
    for stored in OrderModel.scan(consistent_read=True):
        if stored.lineas is None and stored.producto_id is not None:
            written["OrdersTable"] += int(_lined(stored))
    return written


def _lined(item: OrderModel) -> bool:
    """The order's one line written, as its status says it is."""
    order = storage.to_domain(item, Order)
    m = OrderModel
    try:
        m(order.id).update(
            actions=[m.lineas.set(list(order.lineas))],
            condition=m.lineas.does_not_exist() & (m.status == order.status),
        )
    except UpdateError as exc:
        if storage.condition_failed(exc):
            return False  # moved meanwhile, by code that wrote its lines
        raise
    return True


def settings_for(stage: str | None) -> Cloud:
    """The settings the migration binds its models with: the running local stack's tables
    without a stage (and its emulator's address); with one, that deployed stack's names."""
    import os

    from infra.shard_backfill import client_and_names

    client, names = client_and_names(stage, TABLES)
    if stage is None:
        from infra.local import LOCAL_AWS_ENV

        os.environ.update(LOCAL_AWS_ENV)
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = client.meta.endpoint_url
    by_variable = {table_env_var(logical_id): name for logical_id, name in names.items()}
    return Cloud(region=client.meta.region_name, table_names=MappingProxyType(by_variable))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", help="a samconfig.toml environment (dev, prod)")
    args = parser.parse_args()
    written = migrate(settings_for(args.stage))
    print(f"ProductsTable: {written['ProductsTable']} products' units put in PRINCIPAL")
    print(f"StockReservationsTable: {written['StockReservationsTable']} reservations carried")
    print(f"OrdersTable: {written['OrdersTable']} orders given their one line")


if __name__ == "__main__":
    main()
