"""Which implementations the personal data routes get: a person's orders and shipments
and the record of requests in DynamoDB, their account in the user pool (none where the
stack has no pool), the userIds' claims, and the erasure queue (SQS)."""

import functools

from common.http.lists import Lists
from common.http.service_app import PlatformApp, ServiceBlueprint, create_app
from common.identity import account_end
from common.identity.account_end import unavailable
from common.identity.accounts import Revocations
from common.identity.attempts_repository import DynamoAttempts
from common.identity.user_ids import UserIds
from common.personal_data.erasures import ErasureQueue
from common.platform import aws
from common.platform.lambda_init import REHEARSAL_ID
from common.platform.logs import get_logger
from common.platform.settings import Cloud, Erasures, Http, Pages, Pool
from users import routes, service
from users.pool import Accounts, CountedPasswords
from users.repository import PersonsData, Requests
from users.rules import Account

SERVICE = "users"
FUNCTION = "UsersFunction"


class NoPool(account_end.NoPool):
    """Where no user pool is configured (a stack that takes another provider's tokens):
    no one has an account here (none to end: common.identity.account_end); nothing about accounts
    can be changed."""

    def get(self, username: str, user_id: int) -> Account | None:
        return None

    def rename(self, username: str, nombre: str) -> None:
        raise unavailable("this stack has no user pool")

    def change_email(self, username: str, email: str) -> None:
        raise unavailable("this stack has no user pool")

    def password_is(self, email: str, password: str) -> bool:
        return False


def accounts_for(cloud: Cloud, pool: Pool) -> Accounts | NoPool:
    if pool.user_pool_id is None:
        return NoPool()
    return Accounts(
        functools.partial(aws.cognito, cloud),
        pool.user_pool_id,
        pool.user_pool_client_id,
        Revocations.for_function(cloud),
    )


def routes_for(cloud: Cloud, pool: Pool, pages: Pages, erasures: Erasures) -> ServiceBlueprint:
    with aws.acting_as(FUNCTION):
        accounts = accounts_for(cloud, pool)
        persons = PersonsData(cloud)
        requests = Requests(cloud)
        attempts = DynamoAttempts(cloud)
        identity = service.Identity(
            UserIds.for_function(cloud), accounts, CountedPasswords(accounts, attempts)
        )
        eraser = service.Eraser(
            persons, identity, requests, ErasureQueue(cloud, erasures), get_logger(SERVICE)
        )
        blueprint = routes.blueprint(
            routes.Deps(
                persons,
                identity,
                eraser,
                requests,
                Lists.from_settings(pages, cloud),
                pages.max_response_bytes,
                attempts.count_request,
            )
        )
    blueprint.function = FUNCTION
    return blueprint


def create(cloud: Cloud, http: Http, pool: Pool, pages: Pages, erasures: Erasures) -> PlatformApp:
    return create_app(SERVICE, http, routes_for(cloud, pool, pages, erasures))


def rehearse(app: PlatformApp, cloud: Cloud) -> None:
    """At init: the data of a userId no one has, read through the whole request path (its
    claim, its orders and its shipments by their indexes: the clients built, their
    connections open), and a read of the record of requests and its counter (their
    connections open too: the first request records). The platform's own warm-up is no
    one's request: nothing is recorded."""
    app.rehearse("GET", "/api/usuarios/{userId}/datos", userId=REHEARSAL_ID)
    with aws.acting_as(FUNCTION):
        Requests(cloud).warm(int(REHEARSAL_ID))
