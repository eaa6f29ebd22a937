"""The stock check's circuit breaker against real sockets
(docs/api.md#placing-an-order-the-stock-check)."""

import contextlib
import time

import pytest

from common.http.service_calls import OnBehalf
from common.http.service_calls import OverHttp as InventoryOverHttp
from common.identity.callers import SYSTEM
from common.stock.client import InventoryUnavailable, StockAnswer, StockClient
from tests.support.fakes import ScriptedServer, closed_port_url, elapsed

TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl"


@pytest.fixture
def server():
    scripted = ScriptedServer()
    yield scripted
    scripted.stop()


class OverHttp:
    """A stock checker over HTTP whose caller came in on the gateway at `url`."""

    def __init__(self, stock: StockClient):
        self.stock = stock
        self.breaker = stock.breaker

    def check(self, url: str, product_id: int, cantidad: int, token: str | None):
        caller = OnBehalf(SYSTEM, token=token, gateway_url=url)
        return self.stock.check(product_id, cantidad, caller)


def checker(fail_max=3, reset_seconds=30.0, timeout_seconds=2.0) -> OverHttp:
    return OverHttp(
        StockClient(
            fail_max=fail_max,
            reset_seconds=reset_seconds,
            service="orders",
            checks=InventoryOverHttp(None, timeout_seconds),
        )
    )


@pytest.mark.parametrize(
    "status, body, answer",
    [
        (200, "true", StockAnswer.AVAILABLE),
        (200, "false", StockAnswer.INSUFFICIENT),
        (404, '{"error":"PRODUCT_NOT_FOUND"}', StockAnswer.UNKNOWN_PRODUCT),
        (200, '"yes"', StockAnswer.NOT_CONFIRMED),
        (401, '{"message":"Unauthorized"}', StockAnswer.NOT_CONFIRMED),
    ],
)
def test_answers_are_read_from_the_inventory_response(server, status, body, answer):
    server.status, server.body = status, body
    assert checker().check(server.url, 7, 3, TOKEN) is answer


def test_the_call_carries_the_callers_token_and_the_quantity(server):
    checker().check(server.url, 7, 3, TOKEN)
    path, headers = server.requests[0]
    assert path == "/api/inventario/7/stock?cantidad=3"
    assert headers["Authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize("token", ["abc\r\n x", "a b", "a.b.c\x00", "é.é.é", "", None])
def test_nothing_about_the_callers_token_can_count_against_the_inventory(server, token):
    stock = checker(fail_max=1)
    for _ in range(3):
        assert stock.check(server.url, 7, 3, token) is StockAnswer.AVAILABLE
    assert stock.breaker.current_state == "closed"
    # A token that is not a well-formed JWT is not sent at all, never as raw bytes.
    assert all("Authorization" not in headers for _, headers in server.requests)


def _refusal(stock, url) -> bool:
    try:
        stock.check(url, 1, 1, TOKEN)
    except InventoryUnavailable:
        return True
    return False


def test_a_closed_port_falls_back_then_opens_the_breaker_within_fail_max():
    stock = checker(fail_max=3)
    url = closed_port_url()
    assert stock.check(url, 1, 1, None) is StockAnswer.NOT_CONFIRMED
    assert stock.check(url, 1, 1, None) is StockAnswer.NOT_CONFIRMED
    with pytest.raises(InventoryUnavailable):
        stock.check(url, 1, 1, None)  # the third failure trips it
    for _ in range(5):
        with pytest.raises(InventoryUnavailable) as err:
            elapsed(stock.check, url, 1, 1, None)
        assert 1 <= err.value.retry_after_seconds <= 30


def test_while_open_the_inventory_is_not_called_at_all(server):
    server.status = 503
    stock = checker(fail_max=2)
    for _ in range(2):
        with contextlib.suppress(InventoryUnavailable):
            stock.check(server.url, 1, 1, None)
    calls = len(server.requests)
    server.status, server.body = 200, "true"
    for _ in range(3):
        with pytest.raises(InventoryUnavailable):
            stock.check(server.url, 1, 1, None)
    assert len(server.requests) == calls


@pytest.mark.parametrize("status, body", [(404, "{}"), (200, "false"), (401, "{}")])
def test_correct_answers_never_trip_the_breaker(server, status, body):
    server.status, server.body = status, body
    stock = checker(fail_max=2)
    for _ in range(6):
        stock.check(server.url, 1, 1, None)
    assert stock.breaker.current_state == "closed"


def test_5xx_counts_as_a_failure(server):
    server.status = 500
    stock = checker(fail_max=2)
    assert stock.check(server.url, 1, 1, None) is StockAnswer.NOT_CONFIRMED
    with pytest.raises(InventoryUnavailable):
        stock.check(server.url, 1, 1, None)


def test_a_server_that_never_answers_times_out(server):
    """Given up at its timeout: answered while the server still holds the request (it
    would for 30 s), after waiting the timeout (not refused). By that, not by an upper
    bound in seconds, which a loaded machine stretches."""
    server.hang = True
    stock = checker(timeout_seconds=0.3)
    answer, seconds = elapsed(stock.check, server.url, 1, 1, None)
    assert answer is StockAnswer.NOT_CONFIRMED
    assert server.held == 1  # still holding it: the check did not wait for its end
    assert seconds >= 0.25
    assert stock.breaker.fail_counter == 1


def test_after_the_reset_time_one_trial_call_closes_the_breaker_when_it_succeeds(server):
    server.status = 500
    stock = checker(fail_max=1, reset_seconds=0.5)
    with pytest.raises(InventoryUnavailable):
        stock.check(server.url, 1, 1, None)
    server.status, server.body = 200, "true"
    with pytest.raises(InventoryUnavailable):
        stock.check(server.url, 1, 1, None)  # still within the reset time
    time.sleep(0.6)
    before = len(server.requests)
    assert stock.check(server.url, 1, 1, None) is StockAnswer.AVAILABLE
    assert len(server.requests) == before + 1
    assert stock.breaker.current_state == "closed"


def test_a_failed_trial_call_opens_the_breaker_again_at_once(server):
    server.status = 500
    stock = checker(fail_max=1, reset_seconds=0.5)
    with pytest.raises(InventoryUnavailable):
        stock.check(server.url, 1, 1, None)
    time.sleep(0.6)
    with pytest.raises(InventoryUnavailable):
        stock.check(server.url, 1, 1, None)  # the trial, which fails
    trial_calls = len(server.requests)
    with pytest.raises(InventoryUnavailable):
        stock.check(server.url, 1, 1, None)
    assert len(server.requests) == trial_calls
    assert stock.breaker.current_state == "open"
