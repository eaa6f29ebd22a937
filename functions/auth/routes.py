"""Sign-in routes (docs/api.md#signing-in): no token needed, the gateway's authorizer is
not in front of them (infra/template.yaml)."""

from collections.abc import Callable

from chalice import Response

from auth import rules, service
from auth.service import AccountIds, AttemptLog, IdentityProvider
from common.readers import json_object
from common.responses import created, text
from common.service_app import ServiceBlueprint


def blueprint(
    provider: IdentityProvider,
    attempts: AttemptLog,
    ids: AccountIds,
    next_user_id: Callable[[], int],
) -> ServiceBlueprint:
    bp = ServiceBlueprint(__name__)
    # Their answers hold tokens and accounts: never kept by a cache on the way.
    bp.cache_control = "no-store"

    @bp.route("/api/auth/register", methods=["POST"])
    def register() -> Response:
        registration = rules.parse_registration(json_object(bp.current_request))
        return created(service.register(registration, provider, ids, next_user_id))

    # The token alone, as text: the answer of the system this one replaces, so its
    # clients sign in unchanged.
    @bp.route("/api/auth/login", methods=["POST"])
    def login() -> Response:
        credentials = rules.parse_credentials(json_object(bp.current_request))
        return text(service.sign_in(credentials, provider, attempts))

    return bp
