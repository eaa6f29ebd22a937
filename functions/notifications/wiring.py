"""The notification service's app: its own API, no authorizer, no CORS (as deployed)."""

from common.http import PlatformApp, create_app
from common.logs import get_logger
from common.settings import Settings
from notifications import routes

SERVICE = "notifications"


def app_for(settings: Settings) -> PlatformApp:
    return create_app(SERVICE, settings, routes.blueprint(get_logger(SERVICE)), cors=False)


def rehearse(app: PlatformApp) -> None:
    """At init: a notification whose body is not JSON (400), through the whole request
    path; refused, it is not logged as received."""
    app.rehearse("POST", "/notificaciones", body="{")
