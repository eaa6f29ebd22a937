"""Which implementations the shipping routes get: shipments in DynamoDB, and whose an order
is asked of the orders service (an invoke of its function on AWS, HTTP when given a URL)."""

from typing import Any

from common import aws, personal
from common.creating import CreatedOnce, PersonsCopy
from common.idempotency import Once
from common.lambda_init import REHEARSAL_ID
from common.lists import Lists
from common.service_app import PlatformApp, ServiceBlueprint, create_app
from common.service_calls import service
from common.settings import Settings
from common.user_ids import UserIds
from shipping import routes
from shipping.order_owners import OrderOwners
from shipping.repository import ShipmentRepository

SERVICE = "shipping"
FUNCTION = "ShippingFunction"
# Where this function keeps its Idempotency-Key records (IAM allows it these only).
CREATE_SCOPE = "POST /api/envios"


def routes_for(settings: Settings, lambda_client: Any = None) -> ServiceBlueprint:
    """`lambda_client`: another Lambda client than the process's own (a recording one)."""
    with aws.acting_as(FUNCTION):
        blueprint = routes.blueprint(
            ShipmentRepository(settings),
            OrderOwners(
                service(
                    settings.orders_service_url,
                    settings.orders_function,
                    settings.stock_check_timeout_seconds,
                    lambda: lambda_client or aws.lambda_client(settings),
                )
            ),
            Lists.from_settings(settings),
            CreatedOnce(
                Once(settings, CREATE_SCOPE, SERVICE),
                PersonsCopy(
                    personal.SHIPMENT,
                    lambda made: made.owner_id,
                    UserIds.for_function(settings).erased,
                ),
            ),
        )
    blueprint.function = FUNCTION
    return blueprint


def create(settings: Settings) -> PlatformApp:
    return create_app(SERVICE, settings, routes_for(settings))


def rehearse(app: PlatformApp, settings: Settings) -> None:
    """At init: a shipment no one has, read through the whole request path (one GetItem:
    its client built, its connection open; the route's code run once)."""
    app.rehearse("GET", "/api/envios/{id}", id=REHEARSAL_ID)
