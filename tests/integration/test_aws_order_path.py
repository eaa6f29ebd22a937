"""An order on the AWS path, run with recorded clients: one API Gateway trip, the stock
check a direct invoke of the inventory function (issue: one gateway trip per order)."""

import io
import json
from collections import Counter

import pytest
from botocore.exceptions import ClientError, ReadTimeoutError

from common.http.service_calls import ByInvoke, OnBehalf
from common.identity.callers import CUSTOMER, Caller
from common.platform.settings import AllSettings
from common.stock.client import InventoryUnavailable, StockAnswer, StockClient
from infra.dev.tokens import local_token
from tests.support.recorded_aws import RecordedAws
from tests.support.samples import ORDER
from tests.support.tokens import SECRET


@pytest.fixture
def aws(tables):
    # As the template configures the orders function: no URL, the inventory function.
    return RecordedAws(
        AllSettings.from_env(
            {
                "JWT_SECRET": SECRET.decode(),
                "INVENTORY_FUNCTION": "logistics-Inventory-1A2B",
                "ORDER_EVENTS_FUNCTION": "logistics-Events-3C4D",
            }
        )
    )


def test_an_order_costs_one_gateway_trip_and_a_direct_invoke_of_inventory(aws):
    token = local_token(aws.settings.tokens)
    product = aws.request(
        "POST",
        "/api/inventario",
        "/api/inventario",
        token,
        body={
            "sku": "AWS-1",
            "nombre": "Caja",
            "precioUnitario": 1,
            "stockActual": 5,
            "umbralMinimo": 1,
        },
    )
    assert product["statusCode"] == 201
    aws.counts.clear()
    product_id = json.loads(product["body"])["id"]
    placed = aws.request(
        "POST", "/api/pedidos", "/api/pedidos", token, body={**ORDER, "productoId": product_id}
    )
    assert placed["statusCode"] == 201, placed
    assert aws.counts == Counter(
        {
            "API Gateway requests": 1,
            "synchronous Lambda invocations": 3,
            "AuthorizerFunction invocations": 1,
            "OrdersFunction invocations": 1,
            "InventoryFunction invocations": 1,
            "asynchronous Lambda invocations": 1,
        }
    )
    ((function, event),) = aws.queued
    assert (
        function == "logistics-Events-3C4D"
        and event["pedidoId"] == json.loads(placed["body"])["id"]
    )
    too_many = aws.request(
        "POST",
        "/api/pedidos",
        "/api/pedidos",
        token,
        body={**ORDER, "productoId": product_id, "cantidad": 6},
    )
    assert json.loads(too_many["body"])["error"] == "INSUFFICIENT_STOCK"
    unknown = aws.request(
        "POST", "/api/pedidos", "/api/pedidos", token, body={**ORDER, "productoId": 999}
    )
    assert json.loads(unknown["body"])["error"] == "PRODUCT_NOT_FOUND"


class ScriptedLambda:
    """A Lambda client whose invoke answers as told, or fails as told."""

    def __init__(self, answer=None, error: Exception | None = None):
        self.answer, self.error = answer, error
        self.calls = []

    def invoke(self, **call):
        self.calls.append(call)
        if self.error:
            raise self.error
        return {
            "StatusCode": 200,
            **self.answer.get("meta", {}),
            "Payload": io.BytesIO(json.dumps(self.answer["payload"]).encode()),
        }


CALLER = OnBehalf(
    Caller("ana@example.com", CUSTOMER, 7),
    token=None,
    gateway_url="https://unused",
    request_id="corr-1",
)


def checker(client) -> StockClient:
    return StockClient(
        fail_max=1, reset_seconds=60, service="orders", checks=ByInvoke("inventory-fn", client)
    )


@pytest.mark.parametrize(
    "payload, answer",
    [
        ({"statusCode": 200, "body": "true"}, StockAnswer.AVAILABLE),
        ({"statusCode": 200, "body": "false"}, StockAnswer.INSUFFICIENT),
        ({"statusCode": 404, "body": '{"error":"PRODUCT_NOT_FOUND"}'}, StockAnswer.UNKNOWN_PRODUCT),
        ({"statusCode": 400, "body": '{"error":"VALIDATION_ERROR"}'}, StockAnswer.NOT_CONFIRMED),
    ],
)
def test_the_inventory_functions_answers_are_read_and_never_trip_the_breaker(payload, answer):
    client = ScriptedLambda({"payload": payload})
    stock = checker(client)
    for _ in range(3):
        assert stock.check(7, 2, CALLER) is answer
    assert stock.breaker.current_state == "closed"
    (call, *_) = client.calls
    event = json.loads(call["Payload"])
    assert call["FunctionName"] == "inventory-fn" and call["InvocationType"] == "RequestResponse"
    assert event["resource"] == "/api/inventario/{id}/stock"
    assert event["path"] == "/api/inventario/7/stock"
    assert event["multiValueQueryStringParameters"] == {"cantidad": ["2"]}
    # authorized as the caller: the inventory's own rules see who asks
    assert event["requestContext"]["authorizer"] == {
        "principalId": "ana@example.com",
        "sub": "ana@example.com",
        "role": "customer",
        "userId": "7",
    }
    assert event["requestContext"]["requestId"] == "corr-1"


@pytest.mark.parametrize(
    "client",
    [
        ScriptedLambda({"payload": {"statusCode": 503, "body": "{}"}}),
        ScriptedLambda(
            {
                "payload": {"errorMessage": "boom", "errorType": "Exception"},
                "meta": {"FunctionError": "Unhandled"},
            }
        ),
        ScriptedLambda(
            error=ClientError(
                {"Error": {"Code": "TooManyRequestsException", "Message": "Rate exceeded"}},
                "Invoke",
            )
        ),
        ScriptedLambda(error=ReadTimeoutError(endpoint_url="https://lambda")),
    ],
    ids=["5xx", "function error", "throttled", "timed out"],
)
def test_the_inventory_functions_own_failures_open_the_breaker(client):
    stock = checker(client)
    with pytest.raises(InventoryUnavailable):
        stock.check(7, 2, CALLER)  # fail_max=1: the first failure opens it
    assert stock.breaker.current_state == "open"


def test_an_approval_costs_one_gateway_trip_and_a_direct_invoke_of_inventorys_move(aws):
    token = local_token(aws.settings.tokens)
    product = aws.request(
        "POST",
        "/api/inventario",
        "/api/inventario",
        token,
        body={
            "sku": "AWS-2",
            "nombre": "C",
            "precioUnitario": 1,
            "stockActual": 5,
            "umbralMinimo": 1,
        },
    )
    product_id = json.loads(product["body"])["id"]
    placed = aws.request(
        "POST",
        "/api/pedidos",
        "/api/pedidos",
        token,
        body={**ORDER, "productoId": product_id, "cantidad": 2},
    )
    order_id = json.loads(placed["body"])["id"]
    aws.counts.clear()
    route = "/api/pedidos/{id}/status"
    approved = aws.request(
        "PATCH", f"/api/pedidos/{order_id}/status", route, token, query={"status": "APROBADO"}
    )
    assert approved["statusCode"] == 200, approved
    assert aws.counts == Counter(
        {
            "API Gateway requests": 1,
            "synchronous Lambda invocations": 3,
            "AuthorizerFunction invocations": 1,
            "OrdersFunction invocations": 1,
            "InventoryFunction invocations": 1,  # the reservation, on its internal route
        }
    )
    read = aws.request("GET", f"/api/inventario/{product_id}", "/api/inventario/{id}", token)
    assert json.loads(read["body"])["stockReservado"] == 2
    # the internal routes are on no API: a client cannot ask a move of API Gateway
    assert not any(path.startswith("/internal/") for path, _ in aws.routes)
