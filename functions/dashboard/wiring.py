"""Which implementations the dashboard's route gets: its figures table, and each service
reached as the settings say (an invoke of its function on AWS and under `make run`, HTTP
when given its URL: common.service_calls)."""

from typing import Any

from common import aws
from common.service_app import PlatformApp, ServiceBlueprint, create_app
from common.service_calls import Service, service
from common.settings import Settings
from dashboard import routes
from dashboard.health import CHECK_SECONDS, Health
from dashboard.repository import FiguresReader

SERVICE = "dashboard"
FUNCTION = "DashboardFunction"


def services_of(settings: Settings, lambda_client: Any = None) -> dict[str, Service]:
    """Each service the dashboard checks, by the name it shows it under."""

    def client() -> Any:
        return lambda_client or aws.lambda_client(settings)

    where = {
        "inventario": (settings.inventory_service_url, settings.inventory_function),
        "pedidos": (settings.orders_service_url, settings.orders_function),
        "envios": (settings.shipping_service_url, settings.shipping_function),
        "notificaciones": (settings.notification_service_url, settings.notification_function),
    }
    return {
        name: service(url, function, CHECK_SECONDS, client)
        for name, (url, function) in where.items()
    }


def routes_for(settings: Settings, lambda_client: Any = None) -> ServiceBlueprint:
    """`lambda_client`: another Lambda client than the process's own (a recording one)."""
    with aws.acting_as(FUNCTION):
        blueprint = routes.blueprint(
            FiguresReader(settings), Health(services_of(settings, lambda_client))
        )
    blueprint.function = FUNCTION
    return blueprint


def create(settings: Settings) -> PlatformApp:
    return create_app(SERVICE, settings, routes_for(settings))


def rehearse(app: PlatformApp, settings: Settings) -> None:
    """At init: the figures read once, through the same code as a request (one
    BatchGetItem: its client built, its connection open). Not the whole route: its
    checks would ask the other services, each perhaps starting cold for it."""
    with aws.acting_as(FUNCTION):
        FiguresReader(settings).read("0000-00-00T00")
