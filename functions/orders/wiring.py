"""Which implementations the orders routes get: DynamoDB, the inventory through the breaker
every environment shares (its stock check an invoke of the inventory function on AWS,
HTTP when given a URL; its moves an invoke, or this very app's routes locally), and the
event as a Lambda async invoke."""

from typing import Any

from common.http.creating import CreatedOnce, PersonsCopy
from common.http.idempotency import Once
from common.http.lists import Lists
from common.http.service_app import PlatformApp, ServiceBlueprint, create_app
from common.http.service_calls import ByInvoke, Routes, service
from common.identity.user_ids import UserIds
from common.orders.outbox import LambdaPublisher
from common.platform import aws, personal
from common.platform.lambda_init import REHEARSAL_ID
from common.platform.logs import get_logger
from common.platform.settings import Breaker, Cloud, Http, Idempotency, Pages, Peers
from common.stock.breaker import DynamoDBStorage
from common.stock.client import StockClient
from orders import routes
from orders.metrics import SERVICE, OrderMetrics
from orders.repository import OrderRepository
from orders.return_repository import ReturnRepository

FUNCTION = "OrdersFunction"
# Where this function keeps its Idempotency-Key records (IAM allows it these only).
CREATE_SCOPE = "POST /api/pedidos"


def routes_for(
    cloud: Cloud,
    pages: Pages,
    idempotency: Idempotency,
    peers: Peers,
    breaker: Breaker,
    lambda_client: Any = None,
    inventory_here: Routes | None = None,
) -> ServiceBlueprint:
    """`lambda_client`: another Lambda client than the process's own (a recording one);
    `inventory_here`: the inventory's routes in the same app (the local gateway's)."""
    with aws.acting_as(FUNCTION):
        orders = OrderRepository(cloud)
        blueprint = routes.blueprint(
            orders,
            inventory(cloud, peers, breaker, lambda_client, inventory_here),
            LambdaPublisher(cloud, peers, get_logger(SERVICE), lambda_client),
            OrderMetrics(),
            Lists.from_settings(pages, cloud),
            CreatedOnce(
                Once(cloud, idempotency, CREATE_SCOPE, SERVICE),
                PersonsCopy(
                    personal.ORDER,
                    lambda made: made.user_id,
                    UserIds.for_function(cloud).erased,
                    orders.found,
                ),
            ),
            ReturnRepository(cloud),
        )
    blueprint.function = FUNCTION
    return blueprint


def inventory(
    cloud: Cloud,
    peers: Peers,
    breaker: Breaker,
    lambda_client: Any = None,
    inventory_here: Routes | None = None,
) -> StockClient:
    """The inventory as the settings say: the stock check over HTTP when given a URL,
    else by invoking its function when given one, else over HTTP through the gateway the
    order came in on; the moves, only another service's invoke reaches: its function's,
    or else, in an app that holds the inventory's routes too, `inventory_here`. One
    breaker for both, its state in CircuitBreakersTable."""
    function = peers.inventory_function
    client = (lambda_client or aws.lambda_client(cloud, peers)) if function else None
    checks = service(
        peers.inventory_service_url,
        function,
        peers.stock_check_timeout_seconds,
        lambda: client,
    )
    return StockClient(
        fail_max=breaker.breaker_fail_max,
        reset_seconds=breaker.breaker_reset_seconds,
        service=SERVICE,
        checks=checks,
        moves=ByInvoke(function, client) if function else inventory_here,
        storage=DynamoDBStorage(
            aws.dynamodb(cloud),
            cloud.table_name("CircuitBreakersTable"),
            breaker.breaker_reset_seconds,
        ),
        checks_lines=peers.inventory_service_url is None,
    )


def create(
    cloud: Cloud, http: Http, pages: Pages, idempotency: Idempotency, peers: Peers, breaker: Breaker
) -> PlatformApp:
    return create_app(SERVICE, http, routes_for(cloud, pages, idempotency, peers, breaker))


def rehearse(app: PlatformApp) -> None:
    """At init: an order no one has, read through the whole request path (one GetItem:
    its client built, its connection open; the route's code run once).

    No DryRun invoke of the order-events function beside it (there was one until
    issue 35): it cost init 6-9 ms and saved the first order about 1 ms, the Lambda
    client's first call being cheap once the GetItem has run botocore's shared code
    (bench/README.md, Cold start)."""
    app.rehearse("GET", "/api/pedidos/{id}", id=REHEARSAL_ID)
