"""The metrics operators alarm on, read from the lines the handlers print (CloudWatch's
embedded metric format, namespace Logistics)."""

import time

import pytest

from common.platform.settings import Http
from order_events import wiring as order_events
from order_events.listener import NotForwarded
from tests.support.api import body
from tests.support.endpoints import point
from tests.support.fake_lambda import lambda_context
from tests.support.fakes import closed_port_url
from tests.support.metrics import metrics_in, named
from tests.support.samples import ANA_ORDER
from tests.support.settings import built

ORDER = {**ANA_ORDER, "cantidad": 2}
EVENT = {"pedidoId": 5, "userEmail": "ana@example.com", "total": 10, "tipoPedido": "NACIONAL"}


@pytest.fixture
def product(orders_api):
    return body(
        orders_api.post(
            "/api/inventario",
            {
                "sku": "P-1",
                "nombre": "Caja",
                "precioUnitario": 5,
                "stockActual": 3,
                "umbralMinimo": 1,
            },
        )
    )


def test_a_placed_order_and_its_stock_check_are_measured(orders_api, product, capsys):
    started = time.perf_counter()
    placed_answer = orders_api.post("/api/pedidos", {**ORDER, "productoId": product["id"]})
    took_ms = (time.perf_counter() - started) * 1000
    assert placed_answer.status_code == 201
    out = capsys.readouterr().out
    (placed,) = named(out, "OrdersPlaced")
    assert (placed.namespace, placed.unit, placed.value) == ("Logistics", "Count", 1)
    assert placed.dimensions == {"service": "orders"}
    (latency,) = named(out, "StockCheckLatency")
    # A part of the request it was measured in: relative to that, not to a fixed bound
    # a loaded machine stretches.
    assert latency.unit == "Milliseconds" and 0 < latency.value <= took_ms
    assert all(metric.namespace == "Logistics" for metric in metrics_in(out))


@pytest.mark.parametrize(
    "overrides, reason",
    [({"cantidad": 50}, "INSUFFICIENT_STOCK"), ({"productoId": 999}, "PRODUCT_NOT_FOUND")],
)
def test_a_refused_order_is_counted_by_its_reason(orders_api, product, capsys, overrides, reason):
    assert orders_api.post("/api/pedidos", {**ORDER, **overrides}).status_code == 400
    out = capsys.readouterr().out
    (refused,) = named(out, "OrdersRefused")
    assert refused.dimensions == {"service": "orders", "reason": reason}
    assert named(out, "OrdersPlaced") == []


def test_the_breaker_opening_is_counted_once(orders_gateway, capsys):
    api = orders_gateway(
        INVENTORY_SERVICE_URL=closed_port_url(), BREAKER_FAIL_MAX="2", BREAKER_RESET_SECONDS="30"
    )
    answers = [api.post("/api/pedidos", ORDER).status_code for _ in range(4)]
    assert answers == [400, 503, 503, 503]
    out = capsys.readouterr().out
    assert [m.value for m in named(out, "BreakerOpened")] == [1]
    reasons = [m.dimensions["reason"] for m in named(out, "OrdersRefused")]
    assert reasons == ["STOCK_NOT_CONFIRMED"] + ["INVENTORY_UNAVAILABLE"] * 3
    # Every attempt that reached the inventory was timed; refused ones never did.
    assert len(named(out, "StockCheckLatency")) == 2


def test_an_idempotent_replay_is_counted_by_its_scope(api, capsys, monkeypatch):
    # Set on AWS by the template: the service given in code is the one the alarms read.
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "something-else")
    product = {
        "sku": "K-1",
        "nombre": "Caja",
        "precioUnitario": 5,
        "stockActual": 3,
        "umbralMinimo": 1,
    }
    for _ in range(2):
        assert (
            api.post("/api/inventario", product, headers={"Idempotency-Key": "k-1"}).status_code
            == 201
        )
    (replay,) = named(capsys.readouterr().out, "IdempotentReplays")
    assert replay.dimensions == {"service": "inventory", "scope": "POST /api/inventario"}


def test_the_listener_counts_what_it_forwarded_and_what_failed(tables, capsys):
    from notifications.wiring import create as app_for
    from tests.support.served_app import serve

    notifications = serve(app_for(Http()))
    try:
        handler = built(order_events.create, NOTIFICATION_SERVICE_URL=notifications.url)
        handler(EVENT, lambda_context("OrderEvents"))
    finally:
        notifications.stop()
    failing = built(order_events.create, NOTIFICATION_SERVICE_URL=closed_port_url())
    with pytest.raises(NotForwarded):
        failing({**EVENT, "pedidoId": 6}, lambda_context("OrderEvents"))
    out = capsys.readouterr().out
    assert [m.dimensions for m in named(out, "EventsForwarded")] == [{"service": "order-events"}]
    assert len(named(out, "EventsFailed")) == 1


def test_an_event_that_could_not_be_published_is_counted(
    orders_gateway, product, capsys, monkeypatch
):
    point(monkeypatch, "LAMBDA", closed_port_url())
    api = orders_gateway()
    assert api.post("/api/pedidos", {**ORDER, "productoId": product["id"]}).status_code == 201
    assert len(named(capsys.readouterr().out, "EventsNotPublished")) == 1


def _logger():
    from common.platform.logs import get_logger

    return get_logger("order-events")


def test_a_refused_token_is_counted_apart_from_the_authorizers_failures(capsys):
    """Lambda counts the authorizer's refusals as errors; this count lets the errors
    alarm watch the other ones alone."""
    from authorizer import lambda_app

    with pytest.raises(Exception, match="^Unauthorized$"):
        lambda_app.handler(
            {
                "type": "TOKEN",
                "authorizationToken": "Bearer nope",
                "methodArn": "arn:aws:execute-api:us-east-1:1:a/api/GET/x",
            },
            lambda_context("AuthorizerFunction"),
        )
    (rejected,) = named(capsys.readouterr().out, "TokensRejected")
    assert rejected.dimensions == {"service": "authorizer"}
