"""The dashboard's HTTP route (docs/api.md#dashboard): read the request, call the use
case, answer. Operators only: a customer is refused (403) before anything is read."""

from collections.abc import Callable
from datetime import datetime

from chalice import Response

from common.http.readers import caller_of, on_behalf_of
from common.http.responses import ok
from common.http.service_app import ServiceBlueprint
from common.platform.clock import utcnow
from dashboard import access, service
from dashboard.service import Figures, Services


def blueprint(
    figures: Figures, services: Services, clock: Callable[[], datetime] = utcnow
) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)

    @bp.route("/api/dashboard", methods=["GET"])
    def read_dashboard() -> Response:
        request = bp.current_request
        access.may_read_dashboard(caller_of(request))
        return ok(service.dashboard(figures, services, on_behalf_of(request), clock))

    return bp
