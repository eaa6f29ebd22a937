"""The notification service's app: its own API, no authorizer, no CORS (as deployed)."""

from common.http import index
from common.http.service_app import PlatformApp, create_app
from common.platform.logs import get_logger
from common.platform.settings import Http
from notifications import routes

SERVICE = "notifications"
FUNCTION = "NotificationFunction"


def create(http: Http) -> PlatformApp:
    blueprint = routes.blueprint(get_logger(SERVICE))
    blueprint.function = FUNCTION
    return create_app(
        SERVICE,
        http,
        blueprint,
        index.blueprint(index.NOTIFICATIONS, http, FUNCTION),
        cors=False,
    )


def rehearse(app: PlatformApp) -> None:
    """At init: a notification whose body is not JSON (400), through the whole request
    path; refused, it is not logged as received."""
    app.rehearse("POST", "/notificaciones", body="{")
