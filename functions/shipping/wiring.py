"""Which implementations the shipping routes get: shipments, their tracking events and the
carriers in DynamoDB, and whose an order is asked of the orders service (an invoke of its
function on AWS, HTTP when given a URL).

The shipping package is three functions (docs/architecture.md): the API behind the
gateway's token (this module: ShippingFunction), the two routes without one, public
tracking and carriers' signed events (PUBLIC: TrackingFunction, whose concurrency is its
own, so neither a crowd following parcels nor a carrier's burst takes the API's), and the
late check on a schedule (LATE: LateShipmentsFunction)."""

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from common.http.creating import CreatedOnce, PersonsCopy
from common.http.idempotency import Once
from common.http.lists import Lists
from common.http.service_app import PlatformApp, ServiceBlueprint, create_app
from common.http.service_calls import ByInvoke, Routes
from common.http.service_calls import service as service_of
from common.identity.user_ids import UserIds
from common.identity.window_repository import AddressWindow
from common.platform import aws, personal
from common.platform.handlers import FunctionHandler
from common.platform.lambda_init import REHEARSAL_ID
from common.platform.logs import get_logger
from common.platform.settings import Breaker, Cloud, Http, Idempotency, Pages, Peers, Webhooks
from common.stock.client import StockClient
from shipping import routes, service
from shipping.carrier_returns import CarrierReturns
from shipping.carriers_repository import CarrierRepository
from shipping.order_owners import OrderOwners
from shipping.parts_repository import OrderPartsRepository
from shipping.repository import ShipmentRepository

SERVICE = "shipping"
FUNCTION = "ShippingFunction"
PUBLIC_FUNCTION = "TrackingFunction"
LATE_FUNCTION = "LateShipmentsFunction"
# Where this function keeps its Idempotency-Key records (IAM allows it these only).
CREATE_SCOPE = "POST /api/envios"
# Public look-ups one client address may make in any minute (docs/api.md#tracking).
LOOKUPS_PER_MINUTE = 60
LOOKUPS = "tracking-lookup"


def parts_for(
    cloud: Cloud,
    peers: Peers,
    breaker: Breaker,
    lambda_client: Any = None,
    services_here: Routes | None = None,
) -> service.Parts:
    """What a shipment with lines of its order moves beside itself
    (docs/api.md#shipments-of-parts): its units, by the inventory's internal route (an
    invoke of its function on AWS; this very app's routes locally, `services_here`),
    through a breaker of this function's own; its order's counts, in the orders' table;
    the return it opens when its carrier brings it back, by the orders' internal route
    (reached the same two ways)."""

    def reached(function: str | None) -> Routes | None:
        # One Lambda client for both: common.platform.aws keeps one per acting function.
        return (
            ByInvoke(function, lambda_client or aws.lambda_client(cloud, peers))
            if function
            else services_here
        )

    returns_to = reached(peers.orders_function)
    stock = StockClient(
        fail_max=breaker.breaker_fail_max,
        reset_seconds=breaker.breaker_reset_seconds,
        service=SERVICE,
        moves=reached(peers.inventory_function),
        alarmed=False,
    )
    return service.Parts(
        stock=stock,
        orders=OrderPartsRepository(cloud),
        erased=UserIds.for_function(cloud).erased,
        returns=CarrierReturns(returns_to, SERVICE) if returns_to is not None else None,
    )


def routes_for(
    cloud: Cloud,
    pages: Pages,
    idempotency: Idempotency,
    peers: Peers,
    breaker: Breaker,
    webhooks: Webhooks,
    lambda_client: Any = None,
    services_here: Routes | None = None,
) -> ServiceBlueprint:
    """`lambda_client`: another Lambda client than the process's own (a recording one);
    `services_here`: the inventory's and the orders' internal routes in the same app (the
    local gateway's), for the calls `parts_for` makes when no function is named."""
    with aws.acting_as(FUNCTION):
        shipments = ShipmentRepository(cloud)
        blueprint = routes.blueprint(
            shipments,
            OrderOwners(
                service_of(
                    peers.orders_service_url,
                    peers.orders_function,
                    peers.stock_check_timeout_seconds,
                    lambda: lambda_client or aws.lambda_client(cloud, peers),
                ),
                UserIds.for_function(cloud).erased,
            ),
            Lists.from_settings(pages, cloud),
            CreatedOnce(
                Once(cloud, idempotency, CREATE_SCOPE, SERVICE),
                PersonsCopy(
                    personal.SHIPMENT,
                    lambda made: made.owner_id,
                    UserIds.for_function(cloud).erased,
                    shipments.found,
                ),
            ),
            CarrierRepository(cloud, webhooks),
            parts_for(cloud, peers, breaker, lambda_client, services_here),
        )
    blueprint.function = FUNCTION
    return blueprint


def public_routes_for(
    cloud: Cloud,
    peers: Peers,
    breaker: Breaker,
    webhooks: Webhooks,
    lambda_client: Any = None,
    services_here: Routes | None = None,
) -> ServiceBlueprint:
    with aws.acting_as(PUBLIC_FUNCTION):
        blueprint = routes.public_blueprint(
            ShipmentRepository(cloud),
            CarrierRepository(cloud, webhooks),
            AddressWindow(
                cloud,
                LOOKUPS,
                LOOKUPS_PER_MINUTE,
                60.0,
                "TOO_MANY_LOOKUPS",
            ),
            parts_for(cloud, peers, breaker, lambda_client, services_here),
        )
    blueprint.function = PUBLIC_FUNCTION
    return blueprint


def create(
    cloud: Cloud,
    http: Http,
    pages: Pages,
    idempotency: Idempotency,
    peers: Peers,
    breaker: Breaker,
    webhooks: Webhooks,
) -> PlatformApp:
    return create_app(
        SERVICE, http, routes_for(cloud, pages, idempotency, peers, breaker, webhooks)
    )


def rehearse(app: PlatformApp) -> None:
    """At init: a shipment no one has, read through the whole request path (one GetItem:
    its client built, its connection open; the route's code run once)."""
    app.rehearse("GET", "/api/envios/{id}", id=REHEARSAL_ID)


def _create_public(
    cloud: Cloud, http: Http, peers: Peers, breaker: Breaker, webhooks: Webhooks
) -> PlatformApp:
    return create_app("tracking", http, public_routes_for(cloud, peers, breaker, webhooks))


def _rehearse_public(app: PlatformApp) -> None:
    """At init: a carrier no one is, through the intake's path (one GetItem of the
    carriers' table; refused 401 before anything else is read)."""
    app.rehearse("POST", "/api/transportistas/{codigo}/eventos", body="{}", codigo="-")


def _create_late(cloud: Cloud) -> FunctionHandler:
    logger = get_logger("late-shipments")
    with aws.acting_as(LATE_FUNCTION):
        shipments = ShipmentRepository(cloud)

    def run(event: dict, context: Any) -> dict:
        marked = service.check_late(shipments, datetime.now(UTC).replace(tzinfo=None))
        logger.info("late shipments checked", extra={"marked": marked})
        return {"marked": marked}

    return FunctionHandler(LATE_FUNCTION, logger, run)


# The other two functions' wirings, as common.platform.lambda_init.start takes one.
PUBLIC = SimpleNamespace(FUNCTION=PUBLIC_FUNCTION, create=_create_public, rehearse=_rehearse_public)
LATE = SimpleNamespace(FUNCTION=LATE_FUNCTION, create=_create_late)
