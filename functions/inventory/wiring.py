"""Which implementations the inventory routes get: products in DynamoDB."""

from common.http import index
from common.http.creating import CreatedOnce
from common.http.idempotency import Once
from common.http.lists import Lists
from common.http.service_app import PlatformApp, ServiceBlueprint, create_app
from common.platform import aws
from common.platform.lambda_init import REHEARSAL_ID
from common.platform.settings import Cloud, Http, Idempotency, Pages
from inventory import routes
from inventory.repository import ProductRepository
from inventory.stock_repository import Balance, StockRepository
from inventory.warehouse_repository import WarehouseRepository

SERVICE = "inventory"
FUNCTION = "InventoryFunction"
# Where this function keeps its Idempotency-Key records (IAM allows it these only).
CREATE_SCOPE = "POST /api/inventario"


def routes_for(cloud: Cloud, pages: Pages, idempotency: Idempotency) -> ServiceBlueprint:
    with aws.acting_as(FUNCTION):
        blueprint = routes.blueprint(
            ProductRepository(cloud),
            StockRepository(cloud),
            WarehouseRepository(cloud),
            Balance(cloud),
            Lists.from_settings(pages, cloud),
            CreatedOnce(Once(cloud, idempotency, CREATE_SCOPE, SERVICE)),
        )
    blueprint.function = FUNCTION
    return blueprint


def create(cloud: Cloud, http: Http, pages: Pages, idempotency: Idempotency) -> PlatformApp:
    """Its routes, and the gateway's root, which API Gateway sends to this function."""
    return create_app(
        SERVICE,
        http,
        routes_for(cloud, pages, idempotency),
        index.blueprint(index.GATEWAY, http, FUNCTION),
    )


def rehearse(app: PlatformApp) -> None:
    """At init: a product no one has, read through the whole request path (one GetItem:
    its client built, its connection open; the route's code run once)."""
    app.rehearse("GET", "/api/inventario/{id}", id=REHEARSAL_ID)
