"""Which implementations the inventory routes get: products in DynamoDB."""

from chalice import Blueprint

from common.http import Lists
from common.settings import Settings
from inventory import routes
from inventory.repository import ProductRepository


def routes_for(settings: Settings) -> Blueprint:
    return routes.blueprint(ProductRepository(settings), Lists.from_settings(settings))
