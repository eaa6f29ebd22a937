"""Which implementations the inventory routes get: products in DynamoDB."""

from common.http import index
from common.http.creating import CreatedOnce
from common.http.idempotency import Once
from common.http.lists import Lists
from common.http.service_app import PlatformApp, ServiceBlueprint, create_app
from common.platform import aws
from common.platform.lambda_init import REHEARSAL_ID
from common.platform.settings import Settings
from inventory import routes
from inventory.repository import ProductRepository
from inventory.stock_repository import Balance, StockRepository
from inventory.warehouse_repository import WarehouseRepository

SERVICE = "inventory"
FUNCTION = "InventoryFunction"
# Where this function keeps its Idempotency-Key records (IAM allows it these only).
CREATE_SCOPE = "POST /api/inventario"


def routes_for(settings: Settings) -> ServiceBlueprint:
    with aws.acting_as(FUNCTION):
        blueprint = routes.blueprint(
            ProductRepository(settings),
            StockRepository(settings),
            WarehouseRepository(settings),
            Balance(settings),
            Lists.from_settings(settings),
            CreatedOnce(Once(settings, CREATE_SCOPE, SERVICE)),
        )
    blueprint.function = FUNCTION
    return blueprint


def create(settings: Settings) -> PlatformApp:
    """Its routes, and the gateway's root, which API Gateway sends to this function."""
    return create_app(
        SERVICE, settings, routes_for(settings), index.blueprint(index.GATEWAY, settings, FUNCTION)
    )


def rehearse(app: PlatformApp, settings: Settings) -> None:
    """At init: a product no one has, read through the whole request path (one GetItem:
    its client built, its connection open; the route's code run once)."""
    app.rehearse("GET", "/api/inventario/{id}", id=REHEARSAL_ID)
