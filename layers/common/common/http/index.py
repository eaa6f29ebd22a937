"""GET / of each API: what it is, its version and where its documentation is, without a
token (docs/api.md#the-services-roots)."""

from chalice import Response

from common.http.responses import ok
from common.http.service_app import ServiceBlueprint
from common.platform.settings import Http

# The API's version: docs/openapi.yaml's info.version (tests/unit/test_openapi.py holds
# the two together).
VERSION = "1.0.0"
GATEWAY = "logistics-gateway"
NOTIFICATIONS = "notification-service"


def blueprint(name: str, http: Http, function: str) -> ServiceBlueprint:
    """The root of API `name`, answered by `function` (the template routes it there)."""
    bp = ServiceBlueprint(__name__)
    bp.function = function

    @bp.route("/", methods=["GET"])
    def index() -> Response:
        return ok({"name": name, "version": VERSION, "docs": http.docs_url})

    return bp
