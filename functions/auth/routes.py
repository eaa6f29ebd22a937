"""Sign-in routes (docs/api.md#signing-in): no token needed, the gateway's authorizer is
not in front of them (infra/template.yaml)."""

from chalice import Response

from auth import rules, service
from auth.service import AttemptLog, IdentityProvider, Registrar
from common.http.readers import client_address, json_object
from common.http.responses import created, text
from common.http.service_app import ServiceBlueprint


def blueprint(
    provider: IdentityProvider, attempts: AttemptLog, registrar: Registrar
) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)
    # Their answers hold tokens and accounts: never kept by a cache on the way.
    bp.cache_control = "no-store"

    @bp.route("/api/auth/register", methods=["POST"])
    def register() -> Response:
        request = bp.current_request
        registration = rules.parse_registration(json_object(request))
        return created(service.register(registration, client_address(request), registrar))

    # The token alone, as text: the answer of the system this one replaces, so its
    # clients sign in unchanged.
    @bp.route("/api/auth/login", methods=["POST"])
    def login() -> Response:
        request = bp.current_request
        credentials = rules.parse_credentials(json_object(request))
        return text(service.sign_in(credentials, client_address(request), provider, attempts))

    return bp
