"""Which implementations the inventory routes get: products in DynamoDB."""

from chalice import Blueprint

from common.http import CreatedOnce, Lists, PlatformApp
from common.idempotency import Once
from common.settings import Settings
from inventory import routes
from inventory.repository import ProductRepository

# Where this function keeps its Idempotency-Key records (IAM allows it these only).
CREATE_SCOPE = "POST /api/inventario"


def routes_for(settings: Settings) -> Blueprint:
    return routes.blueprint(ProductRepository(settings), Lists.from_settings(settings),
                            CreatedOnce(Once(settings, CREATE_SCOPE, "inventory")))


def rehearse(app: PlatformApp, settings: Settings) -> None:
    """At init: the list's first page of one, through the whole request path (the
    page key read, the counter, the table)."""
    app.rehearse("GET", "/api/inventario", query={"limit": "1"})
