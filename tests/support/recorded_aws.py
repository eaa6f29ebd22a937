"""The AWS path of a request, run in one process with recorded clients.

API Gateway (with its TOKEN authorizer) sends each route to the function the template
says; functions call each other through a Lambda client that runs the callee's handler
in place. Every API Gateway request and every Lambda invocation is counted, so what an
order costs on AWS can be read off a test or a benchmark, without AWS.
"""

import dataclasses
import io
import json
import uuid
from collections import Counter
from types import SimpleNamespace

from authorizer.policy import authorize
from authorizer.tokens import verifier_for
from common.http.gateway_events import rest_event
from common.http.service_app import create_app
from common.platform.settings import AllSettings
from infra import template
from inventory.wiring import routes_for as inventory_routes
from order_events.wiring import create as order_events_handler
from orders.wiring import routes_for as order_routes
from shipping.wiring import routes_for as shipping_routes

STAGE = "api"


def lambda_context(function: str):
    """What a handler reads of Lambda's context, for `function`."""
    return SimpleNamespace(
        function_name=function,
        memory_limit_in_mb=256,
        aws_request_id=str(uuid.uuid4()),
        get_remaining_time_in_millis=lambda: 10_000,
        invoked_function_arn=f"arn:aws:lambda:us-east-1:1:function:{function}",
    )


def _path_parameters(route: str, path: str) -> dict | None:
    """{"id": "7"} for the route /api/pedidos/{id} and the path /api/pedidos/7."""
    found = {
        name[1:-1]: value
        for name, value in zip(route.split("/"), path.split("/"), strict=True)
        if name.startswith("{")
    }
    return found or None


class RecordedAws:
    def __init__(self, settings: AllSettings):
        self.settings = settings
        self._verify = verifier_for(settings.cloud, settings.tokens, settings.pool)
        peers, http, given = settings.peers, settings.http, settings.arguments
        self.counts: Counter = Counter()
        self.queued: list[tuple[str, dict]] = []  # asynchronous invocations, not yet run
        self.routes = template.api_routes("GatewayApi")
        # The template passes each function's deployed name; here they are their own.
        self.names = {
            peers.inventory_function: "InventoryFunction",
            peers.orders_function: "OrdersFunction",
            peers.order_events_function: "OrderEventsFunction",
        }
        self.handlers = {
            "InventoryFunction": create_app(
                "inventory", http, inventory_routes(**given(inventory_routes))
            ),
            "OrdersFunction": create_app(
                "orders", http, order_routes(**given(order_routes), lambda_client=self)
            ),
            "ShippingFunction": create_app(
                "shipping", http, shipping_routes(**given(shipping_routes), lambda_client=self)
            ),
            # The listener with no notification service to forward to: it logs the event
            # and records it once, which is what an order's event costs in DynamoDB.
            "OrderEventsFunction": order_events_handler(
                settings.cloud,
                settings.idempotency,
                dataclasses.replace(peers, notification_service_url=None),
            ),
        }

    # -- API Gateway ------------------------------------------------------------------------

    def request(
        self, method: str, path: str, route: str, token: str, body=None, query: dict | None = None
    ) -> dict:
        """One client request through API Gateway: its authorizer, then the route's function."""
        self.counts["API Gateway requests"] += 1
        arn = f"arn:aws:execute-api:us-east-1:1:abc/{STAGE}/{method}{path}"
        self._invoked("AuthorizerFunction")
        policy = authorize(f"Bearer {token}", arn, self._verify)
        function = self.routes[(route, method)]
        return self._run(
            function,
            rest_event(
                method,
                route,
                path_parameters=_path_parameters(route, path),
                query=query,
                headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
                body=None if body is None else json.dumps(body),
                request_id=str(uuid.uuid4()),
                authorizer={"principalId": policy["principalId"], **policy["context"]},
                request_context={
                    "stage": STAGE,
                    "path": f"/{STAGE}{path}",
                    "domainName": "abc.execute-api.us-east-1.amazonaws.com",
                },
            ),
        )

    # -- Lambda's Invoke, as the functions' own client ----------------------------------------

    def invoke(
        self, FunctionName: str, InvocationType: str = "RequestResponse", Payload: bytes = b"{}"
    ):
        """botocore's lambda.invoke, answered by running the function here."""
        event = json.loads(Payload)
        if InvocationType == "Event":
            self.counts["asynchronous Lambda invocations"] += 1
            self.queued.append((FunctionName, event))
            return {"StatusCode": 202}
        result = self._run(self.names[FunctionName], event)
        return {"StatusCode": 200, "Payload": io.BytesIO(json.dumps(result).encode())}

    def deliver_queued(self) -> None:
        """Run the asynchronous invocations queued so far, as Lambda would next."""
        queued, self.queued = self.queued, []
        for name, event in queued:  # counted when queued, as asynchronous invocations
            function = self.names[name]
            self.handlers[function](event, lambda_context(function))

    def _run(self, function: str, event: dict) -> dict:
        self._invoked(function)
        return self.handlers[function](event, lambda_context(function))

    def _invoked(self, function: str) -> None:
        self.counts["synchronous Lambda invocations"] += 1
        self.counts[f"{function} invocations"] += 1
