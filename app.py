"""The gateway: inventory, orders, shipping, webhooks, the dashboard and personal data
behind one JWT authorizer, and signing in (no token), in one app.

Locally this is the app the local server (and `chalice local`) runs; on AWS each service
is its own function behind API Gateway and its authorizer (infra/template.yaml), wired
from the same `routes_for` functions.
"""

# First, under `chalice local`: it quiets the libraries' import-time log lines.
import infra.chalice_local
import inventory.wiring
import orders.wiring
import shipping.wiring
import users.wiring
import webhooks.wiring
from auth import wiring as sign_in
from authorizer import wiring as authorizer
from authorizer.policy import authorize
from common.http import index
from common.http.service_app import InProcess, PlatformApp, create_app
from common.platform import aws
from common.platform.settings import AllSettings
from dashboard import wiring as dashboard
from infra import template

NAME = index.GATEWAY


def create_gateway(settings: AllSettings) -> PlatformApp:
    """Every API's routes in one app: it takes every slice its functions take."""
    root = index.blueprint(NAME, settings.http, inventory.wiring.FUNCTION)
    given = settings.arguments
    # The internal routes (the inventory's stock moves, the orders' carrier returns) are
    # on AWS reached only by an invoke of their function: here, with no INVENTORY_FUNCTION
    # or ORDERS_FUNCTION, this app's own.
    built: list[PlatformApp] = []
    here = InProcess(lambda: built[0])
    orders_routes, shipping_routes = orders.wiring.routes_for, shipping.wiring.routes_for
    public_routes = shipping.wiring.public_routes_for
    app = create_app(
        NAME,
        settings.http,
        inventory.wiring.routes_for(**given(inventory.wiring.routes_for)),
        orders_routes(**given(orders_routes), inventory_here=here),
        shipping_routes(**given(shipping_routes), services_here=here),
        public_routes(**given(public_routes), services_here=here),
        webhooks.wiring.routes_for(**given(webhooks.wiring.routes_for)),
        dashboard.routes_for(**given(dashboard.routes_for)),
        users.wiring.routes_for(**given(users.wiring.routes_for)),
        sign_in.routes_for(**given(sign_in.routes_for)),
        root,
    )
    built.append(app)

    verify = authorizer.create(**given(authorizer.create)).verify

    @app.authorizer()
    def jwt_authorizer(auth_request):
        with aws.acting_as(authorizer.FUNCTION):
            return authorize(auth_request.token, auth_request.method_arn, verify)

    # Every gateway route is guarded but those the template leaves open (its root, signing
    # in): set here once, so a new route cannot forget it.
    public = template.public_routes("GatewayApi")
    for path, route_methods in app.routes.items():
        for method, route in route_methods.items():
            if (path, method) not in public:
                route.authorizer = jwt_authorizer
    return app


def __getattr__(name: str):
    """`app` is built on first use (`chalice local` asks for it at start), so importing
    create_gateway, as the local stack does with its own settings, builds nothing.
    Chalice's command line may use it for `chalice local --stage local` alone."""
    if name == "app":
        infra.chalice_local.check_command()
        globals()["app"] = create_gateway(AllSettings.load())
        return globals()["app"]
    raise AttributeError(name)
