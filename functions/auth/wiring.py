"""Which implementations the sign-in routes get: the user pool the settings name, the
attempts in DynamoDB, user ids from their counter. A stack without a pool (USER_POOL_ID
unset) answers every sign-in 503, never a 500."""

from auth import routes
from auth.pool import CognitoPool, unavailable
from auth.repository import DynamoAttempts, DynamoRegistrations, user_ids
from auth.rules import Credentials, Registration
from auth.service import IdentityProvider, Registrar
from common.http.service_app import PlatformApp, ServiceBlueprint, create_app
from common.identity.user_ids import UserIds
from common.platform import aws
from common.platform.settings import Cloud, Http, Pool

SERVICE = "auth"
FUNCTION = "AuthFunction"


class NoPool:
    """Where no user pool is configured (chalice local without one, say)."""

    def create_customer(self, registration: Registration, user_id: int) -> str:
        raise unavailable("this stack has no user pool")

    def sign_in(self, credentials: Credentials) -> str:
        raise unavailable("this stack has no user pool")

    def remove_customer(self, email: str) -> None:
        return None


def provider_for(cloud: Cloud, pool: Pool) -> IdentityProvider:
    if pool.user_pool_id is None or pool.user_pool_client_id is None:
        return NoPool()
    return CognitoPool(aws.cognito(cloud), pool.user_pool_id, pool.user_pool_client_id)


def routes_for(cloud: Cloud, pool: Pool) -> ServiceBlueprint:
    with aws.acting_as(FUNCTION):
        provider = provider_for(cloud, pool)
        registrar = Registrar(
            provider,
            UserIds.for_function(cloud),
            user_ids(cloud),
            DynamoRegistrations(cloud),
        )
        blueprint = routes.blueprint(provider, DynamoAttempts(cloud), registrar)
    blueprint.function = FUNCTION
    return blueprint


def create(cloud: Cloud, http: Http, pool: Pool) -> PlatformApp:
    return create_app(SERVICE, http, routes_for(cloud, pool))


def rehearse(app: PlatformApp) -> None:
    """At init: a sign-in without a password, through the whole request path (refused
    400 before any table or the pool is asked: nothing counted against anyone)."""
    app.rehearse("POST", "/api/auth/login", body='{"email": "init@rehearsal.invalid"}')
