"""Which implementations the inventory routes get: products in DynamoDB."""

from chalice import Blueprint

from common.http import CreatedOnce, Lists
from common.idempotency import Once
from common.settings import Settings
from inventory import routes
from inventory.repository import ProductRepository

# Where this function keeps its Idempotency-Key records (IAM allows it these only).
CREATE_SCOPE = "POST /api/inventario"


def routes_for(settings: Settings) -> Blueprint:
    return routes.blueprint(ProductRepository(settings), Lists.from_settings(settings),
                            CreatedOnce(Once(settings, CREATE_SCOPE)))
