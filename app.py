"""The gateway: inventory, orders and shipping behind one JWT authorizer.

Locally this app is what Chalice's server runs; on AWS each service is its own function
behind API Gateway and its authorizer (infra/template.yaml), built from the same blueprints.
"""

from authorizer.handler import authorize
from common.http import create_app
from inventory.routes import bp as inventory_routes
from orders.routes import bp as order_routes
from shipping.routes import bp as shipping_routes

app = create_app("logistics-gateway", inventory_routes, order_routes, shipping_routes)


@app.authorizer()
def jwt_authorizer(auth_request):
    return authorize(auth_request.token, auth_request.method_arn)


# Every gateway route is guarded: set here once, so a new route cannot forget it.
for route_methods in app.routes.values():
    for route in route_methods.values():
        route.authorizer = jwt_authorizer
