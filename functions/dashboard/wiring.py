"""Which implementations the dashboard's route gets: its figures table, and each service
asked over HTTP (common.http.service_calls.OverHttp): the inventory, orders and shipping
through the gateway the request came in on, with the caller's own token (or at their
URL, when given one), the notification service at its URL. Never by invoking their
functions: an invoke carries whatever caller its event names, and this function has no
business acting as anyone on them (IAM lets it invoke nothing)."""

from common.http.service_app import PlatformApp, ServiceBlueprint, create_app
from common.http.service_calls import OverHttp, Routes
from common.platform import aws
from common.platform.settings import Cloud, Http, Peers
from dashboard import routes
from dashboard.health import CHECK_SECONDS, Health
from dashboard.repository import FiguresReader

SERVICE = "dashboard"
FUNCTION = "DashboardFunction"


def services_of(peers: Peers) -> dict[str, Routes]:
    """Each service the dashboard checks, by the name it shows it under (None: the gateway
    the request came in on)."""
    where = {
        "inventario": peers.inventory_service_url,
        "pedidos": peers.orders_service_url,
        "envios": peers.shipping_service_url,
        "notificaciones": peers.notification_service_url,
    }
    return {name: OverHttp(url, CHECK_SECONDS) for name, url in where.items()}


def routes_for(cloud: Cloud, peers: Peers) -> ServiceBlueprint:
    with aws.acting_as(FUNCTION):
        blueprint = routes.blueprint(FiguresReader(cloud), Health(services_of(peers)))
    blueprint.function = FUNCTION
    return blueprint


def create(cloud: Cloud, http: Http, peers: Peers) -> PlatformApp:
    return create_app(SERVICE, http, routes_for(cloud, peers))


def rehearse(app: PlatformApp, cloud: Cloud) -> None:
    """At init: the figures read once, through the same code as a request (one
    BatchGetItem: its client built, its connection open). Not the whole route: its
    checks would ask the other services, each perhaps starting cold for it."""
    with aws.acting_as(FUNCTION):
        FiguresReader(cloud).read("0000-00-00T00")
