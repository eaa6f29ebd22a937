"""The HTTP edge's pure parts: reading ids, mapping domain errors, the API's JSON."""

import json
from dataclasses import dataclass
from decimal import Decimal

import pytest

from common.http.readers import gateway_base_url, path_id
from common.http.responses import api_json, domain_error_response
from common.platform.errors import Conflict, Invalid, NotFound, Unavailable, invalid_field


@pytest.mark.parametrize(
    "raw", ["1\n", "1 ", "+1", "", "\u0661", "\u00b2", "\uff11", "1\u00b2", "\u07c1", "\U0001d7d9"]
)
def test_path_ids_must_be_plain_digits(raw):
    with pytest.raises(Invalid) as err:
        path_id(raw)
    assert err.value.code == "INVALID_ID"


@pytest.mark.parametrize("raw, value", [("7", 7), ("007", 7), ("-3", -3), ("9" * 45, 10**45 - 1)])
def test_numeric_ids_are_read_as_integers(raw, value):
    assert path_id(raw) == value


@pytest.mark.parametrize(
    "error, status",
    [
        (invalid_field("sku", "must not be blank"), 400),
        (NotFound("X_NOT_FOUND", "no"), 404),
        (Conflict("CONCURRENT_UPDATE", "again"), 409),
        (Unavailable("INVENTORY_UNAVAILABLE", "down", retry_after_seconds=7), 503),
    ],
)
def test_each_kind_of_domain_error_has_one_status_and_the_platform_body(error, status):
    response = domain_error_response(error)
    assert response.status_code == status
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    expected = {"error": error.code, "message": error.message}
    if error.details is not None:
        expected["details"] = error.details
    assert json.loads(response.body) == expected
    assert response.headers.get("Retry-After") == ("7" if status == 503 else None)


@dataclass
class _Thing:
    precio_unitario: Decimal
    user_id: int
    id: int
    nested: list


def test_api_json_is_camel_case_with_the_id_first():
    value = _Thing(Decimal("1.10"), 3, 9, [_Thing(Decimal("2"), 4, 10, [])])
    converted = api_json(value)
    assert list(converted) == ["id", "precioUnitario", "userId", "nested"]
    assert converted["nested"][0] == {
        "id": 10,
        "precioUnitario": Decimal("2"),
        "userId": 4,
        "nested": [],
    }


class _Request:
    def __init__(self, event, headers):
        self._event, self.headers = event, headers

    def to_original_event(self):
        return self._event


def test_the_default_inventory_base_is_the_api_gateway_stage_the_request_came_in_on():
    event = {
        "path": "/api/pedidos",
        "requestContext": {
            "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
            "path": "/prod/api/pedidos",
        },
    }
    request = _Request(event, {"host": "abc123.execute-api.us-east-1.amazonaws.com"})
    assert gateway_base_url(request) == "https://abc123.execute-api.us-east-1.amazonaws.com/prod"


def test_the_default_inventory_base_locally_is_the_host_header():
    request = _Request({"requestContext": {"path": "/api/pedidos"}}, {"host": "127.0.0.1:8000"})
    assert gateway_base_url(request) == "http://127.0.0.1:8000"


def test_behind_the_local_gateway_a_forged_host_cannot_redirect_a_call_with_the_token():
    """The dashboard's health checks (and the stock check) called whatever the Host
    header named, carrying the operator's token: the local gateway names its own
    address in the event, as API Gateway names its domain (infra/local/api_gateway.py)."""
    event = {
        "path": "/api/dashboard",
        "requestContext": {"domainName": "127.0.0.1:8000", "path": "/api/dashboard"},
    }
    forged = _Request(event, {"host": "attacker.example:80"})
    assert gateway_base_url(forged) == "http://127.0.0.1:8000"


def test_on_api_gateway_client_headers_cannot_redirect_the_stock_check():
    event = {
        "path": "/api/pedidos",
        "requestContext": {
            "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
            "path": "/prod/api/pedidos",
        },
    }
    forged = _Request(event, {"host": "attacker.example", "x-forwarded-proto": "gopher"})
    assert gateway_base_url(forged) == "https://abc123.execute-api.us-east-1.amazonaws.com/prod"


def test_a_compressed_answer_is_bounded_as_it_is_sent_base64_encoded():
    """A gzip under MAX_RESPONSE_BYTES went out base64-encoded, a third larger: past
    Lambda's 6 MB. It is measured as sent: 406 RESPONSE_TOO_LARGE before that."""
    import os

    from common.http.responses import json_document
    from common.platform.errors import NotAcceptable

    body = {"blob": os.urandom(60_000).hex()}  # incompressible enough: ~64 KB gzipped
    sent = json_document(body, gzip_ok=True, max_bytes=10_000_000)
    compressed = len(sent.body)
    assert sent.headers["Content-Encoding"] == "gzip"
    with pytest.raises(NotAcceptable):
        json_document(body, gzip_ok=True, max_bytes=compressed + 100)  # under it, not as sent
    assert json_document(body, gzip_ok=True, max_bytes=4 * -(-compressed // 3)).body
