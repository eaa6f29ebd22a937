"""What an operator of `make run` sees: one JSON log line per request, and a bad setting
stopping the start with the variable's name."""

import json
import os
import subprocess

import pytest

from tests.support import raw_http
from tests.support.stack_process import ROOT


def _logged(stack) -> list[dict]:
    """Every line the stack wrote since it was ready; each must be a JSON object."""
    after_ready = stack.output().split("Ready. Ctrl-C stops everything.", 1)[1]
    return [json.loads(line) for line in after_ready.splitlines() if line.strip()]


def _lines_about(stack, path: str) -> list[dict]:
    return [line for line in _logged(stack) if line.get("path") == path]


def test_one_request_writes_exactly_one_json_line_with_its_context(http, stack):
    response = http.gateway("GET", "/api/inventario/424242")
    assert response.status_code == 404
    stack.wait_for_line(lambda line: '"path":"/api/inventario/424242"' in line)
    (line,) = _lines_about(stack, "/api/inventario/424242")
    assert line["message"] == "request" and line["level"] == "INFO"
    assert (line["method"], line["route"], line["status"]) == ("GET", "/api/inventario/{id}", 404)
    assert line["sub"] == "developer@localhost"
    assert line["function_request_id"] and line["correlation_id"]
    assert line["function_request_id"] != line["correlation_id"]
    assert line["duration_ms"] >= 0


def test_every_line_the_stack_writes_is_json(http, stack):
    http.gateway("GET", "/api/inventario")
    http.gateway("GET", "/api/inventario", auth=False)  # refused by the authorizer
    http.notify("POST", "/notificaciones", json={"x": 1})
    stack.wait_for_line(lambda line: '"payload":{"x":1}' in line)
    assert all(isinstance(line, dict) for line in _logged(stack))


def test_a_refused_token_is_one_line_too(http, stack):
    http.gateway("GET", "/api/inventario/777000", headers={"Authorization": "Bearer x.y.z"})
    stack.wait_for_line(lambda line: '"path":"/api/inventario/777000"' in line)
    (line,) = _lines_about(stack, "/api/inventario/777000")
    assert line["status"] == 401 and line["reason"] and line["correlation_id"]


@pytest.mark.parametrize(
    "name, value, shown",
    [
        ("BREAKER_RESET_SECONDS", "-1", "'-1'"),
        ("GATEWAY_PORT", "eighty", "'eighty'"),
        ("JWT_SECRET", "short", "(hidden)"),
    ],
)
def test_a_bad_setting_stops_make_run_naming_the_variable(name, value, shown):
    env = {
        "PATH": os.environ["PATH"],
        "GATEWAY_PORT": "0",
        "NOTIFICATION_PORT": "0",
        "DYNAMODB_PORT": "0",
        "LAMBDA_PORT": "0",
        "LOCAL_DATA_DIR": "",
        name: value,
    }
    result = subprocess.run(
        ["make", "-s", "run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "Ready." not in result.stdout
    assert f"Configuration error: {name}={shown}: must be" in result.stderr


def test_a_refusal_on_a_reused_connection_carries_no_key_of_the_request_before(http, stack):
    first = raw_http.request(
        "GET",
        "/api/inventario/990001",
        close=False,
        headers={"Authorization": f"Bearer {http.bearer}"},
    )
    second = raw_http.request(
        "GET", "/api/inventario/990002", headers={"Authorization": "Bearer x.y.z"}
    )
    assert raw_http.statuses(raw_http.exchange(stack.gateway, first + second)) == [404, 401]
    stack.wait_for_line(lambda line: '"path":"/api/inventario/990002"' in line)
    (refusal,) = _lines_about(stack, "/api/inventario/990002")
    assert "function_request_id" not in refusal and "sub" not in refusal
