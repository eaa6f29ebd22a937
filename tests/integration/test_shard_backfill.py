"""Items written before write-sharding, given their shard keys (infra/shard_backfill.py):
then lists, alerts and the event sweep find them as they find new ones."""

from common.platform import aws
from common.platform.settings import Cloud
from infra.shard_backfill import backfill, update_of
from inventory.repository import ProductRepository
from orders.repository import OrderRepository
from shipping.repository import ShipmentRepository

OLD_ORDER = {
    "id": {"N": "21"},
    "userId": {"N": "1"},
    "userEmail": {"S": "a@b.co"},
    "clienteNombre": {"S": "A"},
    "total": {"N": "5"},
    "status": {"S": "APROBADO"},
    "tipoPedido": {"S": "NACIONAL"},
    "destino": {"S": "Lima"},
    "productoId": {"N": "1"},
    "cantidad": {"N": "1"},
    "creadoEn": {"S": "2026-01-01T00:00:00.000000"},
    "eventoPendiente": {"S": "PENDING"},
}
OLD_PRODUCT = {
    "id": {"N": "5"},
    "sku": {"S": "OLD-5"},
    "nombre": {"S": "Caja"},
    "precioUnitario": {"N": "1"},
    "stockActual": {"N": "0"},
    "umbralMinimo": {"N": "3"},
    "enAlerta": {"S": "ALERTA"},
}
OLD_SHIPMENT = {
    "id": {"N": "3"},
    "pedidoId": {"N": "21"},
    "status": {"S": "EN_RUTA"},
    "tipoEnvio": {"S": "EXPRESS"},
    "transportista": {"S": "DHL"},
    "guiaDespecho": {"S": "G-3"},
    "rutaDescripcion": {"S": "r"},
    "destino": {"S": "Lima"},
    "fechaEstimadaEntrega": {"S": "2026-01-02"},
    "creadoEn": {"S": "2026-01-01T00:00:00.000000"},
}
NAMES = {name: name for name in ("ProductsTable", "OrdersTable", "ShipmentsTable")}


def test_old_items_are_found_by_every_list_once_backfilled_and_twice_changes_nothing(tables):
    for table, item in (
        ("OrdersTable", OLD_ORDER),
        ("ProductsTable", OLD_PRODUCT),
        ("ShipmentsTable", OLD_SHIPMENT),
    ):
        tables.put_item(TableName=table, Item=item)
    cloud = Cloud.from_env()
    with aws.acting_as("OrdersFunction"):
        orders = OrderRepository(cloud)
        assert orders.page(0, 10).items == []  # not in any index yet
        assert backfill(tables, NAMES) == {
            "OrdersTable": 1,
            "ProductsTable": 1,
            "ShipmentsTable": 1,
        }
        assert [o.id for o in orders.page(0, 10).items] == [21]
        assert [o.id for o in orders.page(0, 10, status="APROBADO").items] == [21]
    with aws.acting_as("EventSweeperFunction"):
        assert [o.id for o in OrderRepository(cloud).pending_events(10)] == [21]
    with aws.acting_as("InventoryFunction"):
        products = ProductRepository(cloud)
        assert [p.id for p in products.page(0, 10).items] == [5]
        assert [p.id for p in products.alerts_page(0, 10).items] == [5]
    with aws.acting_as("ShippingFunction"):
        shipments = ShipmentRepository(cloud)
        assert [s.id for s in shipments.page(0, 10, status="EN_RUTA").items] == [3]
    assert backfill(tables, NAMES) == {}


def test_an_item_changed_since_it_was_read_is_left_to_the_write_that_changed_it(tables):
    tables.put_item(TableName="OrdersTable", Item=OLD_ORDER)
    update = update_of("OrdersTable", OLD_ORDER)
    # Meanwhile the order moved: its status shard is the new code's to write.
    tables.update_item(
        TableName="OrdersTable",
        Key={"id": {"N": "21"}},
        UpdateExpression="SET #s = :s",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": {"S": "CANCELADO"}},
    )
    try:
        tables.update_item(TableName="OrdersTable", **update)
        raise AssertionError("the backfill wrote over a newer status")
    except tables.exceptions.ConditionalCheckFailedException:
        pass
    assert (
        update_of(
            "OrdersTable",
            {
                **OLD_ORDER,
                "shard": {"N": "5"},
                "statusShard": {"S": "APROBADO#5"},
                "eventoPendiente": {"S": "PENDING#21"},
            },
        )
        is None
    )
