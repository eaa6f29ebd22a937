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
from common.platform.settings import Settings
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
    settings: Settings, lambda_client: Any = None, inventory_here: Routes | None = None
) -> ServiceBlueprint:
    """`lambda_client`: another Lambda client than the process's own (a recording one);
    `inventory_here`: the inventory's routes in the same app (the local gateway's)."""
    with aws.acting_as(FUNCTION):
        orders = OrderRepository(settings)
        blueprint = routes.blueprint(
            orders,
            inventory(settings, lambda_client, inventory_here),
            LambdaPublisher(settings, get_logger(SERVICE), lambda_client),
            OrderMetrics(),
            Lists.from_settings(settings),
            CreatedOnce(
                Once(settings, CREATE_SCOPE, SERVICE),
                PersonsCopy(
                    personal.ORDER,
                    lambda made: made.user_id,
                    UserIds.for_function(settings).erased,
                    orders.found,
                ),
            ),
            ReturnRepository(settings),
        )
    blueprint.function = FUNCTION
    return blueprint


def inventory(
    settings: Settings, lambda_client: Any = None, inventory_here: Routes | None = None
) -> StockClient:
    """The inventory as the settings say: the stock check over HTTP when given a URL,
    else by invoking its function when given one, else over HTTP through the gateway the
    order came in on; the moves, only another service's invoke reaches: its function's,
    or else, in an app that holds the inventory's routes too, `inventory_here`. One
    breaker for both, its state in CircuitBreakersTable."""
    function = settings.inventory_function
    client = (lambda_client or aws.lambda_client(settings)) if function else None
    checks = service(
        settings.inventory_service_url,
        function,
        settings.stock_check_timeout_seconds,
        lambda: client,
    )
    return StockClient(
        fail_max=settings.breaker_fail_max,
        reset_seconds=settings.breaker_reset_seconds,
        service=SERVICE,
        checks=checks,
        moves=ByInvoke(function, client) if function else inventory_here,
        storage=DynamoDBStorage(
            aws.dynamodb(settings),
            settings.table_name("CircuitBreakersTable"),
            settings.breaker_reset_seconds,
        ),
        checks_lines=settings.inventory_service_url is None,
    )


def create(settings: Settings) -> PlatformApp:
    return create_app(SERVICE, settings, routes_for(settings))


def rehearse(app: PlatformApp, settings: Settings) -> None:
    """At init: an order no one has, read through the whole request path (one GetItem:
    its client built, its connection open; the route's code run once).

    No DryRun invoke of the order-events function beside it (there was one until
    issue 35): it cost init 6-9 ms and saved the first order about 1 ms, the Lambda
    client's first call being cheap once the GetItem has run botocore's shared code
    (bench/README.md, Cold start)."""
    app.rehearse("GET", "/api/pedidos/{id}", id=REHEARSAL_ID)
