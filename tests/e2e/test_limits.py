"""Limits no caller can get past (docs/api.md#limits), over HTTP against the real local
stack: throttling as API Gateway's stages do it, the identity validation expression, the
exact body limit, and bodies with an `Idempotency-Key` that must answer as without one."""

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.support import raw_http
from tests.support.stack_client import token
from tests.support.stack_process import StackClient, StackProcess

ONE_MIB = 1024 * 1024
PRODUCT = {"nombre": "Caja", "precioUnitario": 1, "stockActual": 1, "umbralMinimo": 0}


@pytest.fixture(scope="module")
def tight():
    """A stack whose gateway takes 2 requests a second (bursts of 5) and whose
    notification service takes 1 a second (bursts of 3)."""
    stack = StackProcess(
        env={
            "THROTTLE_RATE_LIMIT": "2",
            "THROTTLE_BURST_LIMIT": "5",
            "NOTIFICATION_THROTTLE_RATE_LIMIT": "1",
            "NOTIFICATION_THROTTLE_BURST_LIMIT": "3",
        }
    ).start()
    try:
        yield StackClient(stack, token())
    finally:
        stack.stop()


def burst(send, count: int) -> list:
    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(lambda n: send(n), range(count)))


def test_a_burst_over_the_gateways_limit_gets_429s_writes_nothing_and_recovers(tight):
    time.sleep(3)  # a full bucket
    answers = burst(
        lambda n: tight.gateway("POST", "/api/inventario", json={**PRODUCT, "sku": f"T-{n}"}), 20
    )
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses.count(201) <= 6 and statuses.count(429) >= 14, statuses
    assert set(statuses) <= {201, 429}  # never a 5xx under load
    throttled = next(answer for answer in answers if answer.status_code == 429)
    assert throttled.json() == {"message": "Too Many Requests"}
    assert throttled.headers["Cache-Control"] == "no-store"  # as API Gateway's own answers
    time.sleep(3)
    listed = tight.gateway("GET", "/api/inventario")
    assert listed.status_code == 200
    created = {answer.json()["sku"] for answer in answers if answer.status_code == 201}
    assert {product["sku"] for product in listed.json()} == created  # 429s wrote nothing


def test_a_throttled_request_never_reaches_the_authorizer_or_a_function(tight):
    time.sleep(3)
    before = len(tight.stack.lines)
    junk = {"Authorization": "Bearer not.a.token"}  # passes the identity validation
    answers = burst(lambda n: tight.gateway("GET", "/api/inventario", auth=False, headers=junk), 12)
    statuses = [a.status_code for a in answers]
    assert set(statuses) == {401, 429}
    time.sleep(1)
    lines = [json.loads(line) for line in tight.stack.lines[before:] if line.startswith("{")]
    stopped = [line for line in lines if line.get("status") == 429]
    assert len(stopped) == statuses.count(429)
    assert {line["reason"] for line in stopped} == {"TooManyRequestsException"}
    # Only the requests the throttle let through ran the authorizer (which refused each).
    refused = [line for line in lines if line.get("message") == "token rejected"]
    assert len(refused) == statuses.count(401)


def test_the_notification_service_has_limits_of_its_own(tight):
    time.sleep(4)
    answers = burst(lambda n: tight.notify("POST", "/notificaciones", json={"n": n}), 10)
    statuses = [answer.status_code for answer in answers]
    assert statuses.count(429) >= 6 and set(statuses) <= {200, 429}
    time.sleep(2)
    assert tight.notify("GET", "/notificaciones/health").status_code == 200


@pytest.mark.parametrize(
    "header",
    [
        "Basic YWxhZGRpbjpvcGVu",
        "Bearer",
        "Bearer a b",
        "Bearer tok\u00e9n",
        "Token abc.def.ghi",
        "bearer  ",
    ],
)
def test_a_header_that_is_not_a_bearer_token_is_401_without_the_authorizer(stack, header):
    answer = raw_http.exchange(
        stack.gateway,
        raw_http.request(
            "GET",
            "/api/inventario",
            headers={"Authorization": header.encode("utf-8").decode("latin-1")},
        ),
    )
    assert raw_http.statuses(answer) == [401]
    assert json.loads(raw_http.body_of(answer)) == {"message": "Unauthorized"}


def test_a_body_of_exactly_one_mib_is_taken_and_one_byte_more_is_not(http):
    def body(size: int) -> bytes:
        frame = b'{"blob":""}'
        return frame[:-2] + b"x" * (size - len(frame)) + frame[-2:]

    exact = requests.post(
        http.stack.notifications + "/notificaciones", data=body(ONE_MIB), timeout=30
    )
    assert exact.status_code == 200
    over = requests.post(
        http.stack.notifications + "/notificaciones", data=body(ONE_MIB + 1), timeout=30
    )
    assert over.status_code == 413 and over.json()["error"] == "PAYLOAD_TOO_LARGE"


@pytest.mark.parametrize("depth", [500, 962, 20_000])
def test_a_deep_notification_is_taken_and_its_log_line_bounded(http, depth):
    nested = '{"a":' * depth + "1" + "}" * depth
    answer = http.notify("POST", "/notificaciones", data=nested)
    assert answer.status_code == 200 and answer.text == "Notificación procesada"


def test_a_900_kb_notification_leaves_no_log_line_over_64_kib(http, stack):
    answer = http.notify(
        "POST", "/notificaciones", json={"marker": "big-one", "blob": "y" * 900_000}
    )
    assert answer.status_code == 200
    line = stack.wait_for_line(lambda line: "big-one" in line)
    assert len(line.encode()) < 64 * 1024 and '"payload_bytes":900' in line


ODD = [
    (
        "a huge exponent",
        b'{"sku":"ODD-1","nombre":"x","precioUnitario":1e999999999,'
        b'"stockActual":1,"umbralMinimo":0}',
    ),
    ("deep nesting", b'{"sku":"ODD-2","extra":' + b"[" * 700 + b"]" * 700 + b"}"),
    (
        "a tiny exponent",
        b'{"sku":"ODD-3","nombre":"x","precioUnitario":1e-999999999,'
        b'"stockActual":1,"umbralMinimo":0}',
    ),
]


@pytest.mark.parametrize("path", ["/api/inventario", "/api/pedidos", "/api/envios"])
@pytest.mark.parametrize("name, raw", ODD, ids=[name for name, _ in ODD])
def test_an_odd_body_gets_the_same_4xx_with_an_idempotency_key_as_without(http, path, name, raw):
    without = http.gateway("POST", path, data=raw)
    key = {"Idempotency-Key": "odd-" + name.replace(" ", "-")}
    with_key = http.gateway("POST", path, data=raw, headers=key)
    assert 400 <= without.status_code < 500
    assert (with_key.status_code, with_key.json()["error"]) == (
        without.status_code,
        without.json()["error"],
    )


def test_a_string_is_not_replayed_as_the_number_it_spells(http):
    shipment = {"pedidoId": 99_999, "tipoEnvio": "EXPRESS", "transportista": "X", "destino": "Y"}
    key = {"Idempotency-Key": "typed-1"}
    first = http.gateway("POST", "/api/envios", json={**shipment, "peso": 1.5}, headers=key)
    assert first.status_code == 201
    again = http.gateway("POST", "/api/envios", json={**shipment, "peso": 1.50}, headers=key)
    assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true"
    other = http.gateway("POST", "/api/envios", json={**shipment, "peso": "1.5"}, headers=key)
    assert other.status_code == 422 and other.json()["error"] == "IDEMPOTENCY_KEY_REUSED"


def test_a_transfer_coding_the_server_does_not_know_is_501_as_documented(stack):
    answer = raw_http.exchange(
        stack.notifications,
        raw_http.request(
            "POST",
            "/notificaciones",
            headers={"Transfer-Encoding": "chunked, identity"},
            body=b"2\r\n{}\r\n0\r\n\r\n",
        ),
    )
    assert raw_http.statuses(answer) == [501]
    assert json.loads(raw_http.body_of(answer))["error"] == "NOT_IMPLEMENTED"
