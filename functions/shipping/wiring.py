"""Which implementations the shipping routes get: shipments in DynamoDB."""

from chalice import Blueprint

from common.http import Lists
from common.settings import Settings
from shipping import routes
from shipping.repository import ShipmentRepository


def routes_for(settings: Settings) -> Blueprint:
    return routes.blueprint(ShipmentRepository(settings), Lists.from_settings(settings))
