"""`make run` replaces the environments of the functions whose code changed (a file under
functions/ or layers/), and keeps the data and the ports; code that does not import
answers 502 at once until it is fixed; RELOAD=0 keeps the code it started with. Each test
edits a copy of the checkout, never the one under test."""

import json
import time

import pytest

from infra.dev.reload import POLL_SECONDS
from tests.support.checkout import copy_checkout
from tests.support.stack_client import token
from tests.support.stack_process import StackClient, StackProcess

HEALTH = "/notificaciones/health"
SERVICE = "functions/notifications/service.py"


def edit(root, path: str, old: str, new: str) -> None:
    source = root / path
    text = source.read_text()
    assert old in text
    source.write_text(text.replace(old, new))


def health_becomes(http: StackClient, expected: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if http.notify("GET", HEALTH).text == expected:
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def copy(tmp_path):
    return copy_checkout(tmp_path)


def started(root, reload: str) -> tuple[StackProcess, StackClient]:
    stack = StackProcess({"RELOAD": reload}, root=root).start()
    return stack, StackClient(stack, token())


def test_a_change_under_functions_reloads_the_apps_and_keeps_data_and_ports(copy):
    stack, http = started(copy, "1")
    try:
        created = http.gateway(
            "POST",
            "/api/inventario",
            json={
                "sku": "RELOAD-1",
                "nombre": "Caja",
                "precioUnitario": 1,
                "stockActual": 1,
                "umbralMinimo": 0,
            },
        ).json()
        assert http.notify("GET", HEALTH).text == "notification-service UP"
        edit(copy, SERVICE, '"notification-service UP"', '"notification-service RELOADED"')
        assert health_becomes(http, "notification-service RELOADED", timeout=30), stack.output()
        # Same ports, same data (held in memory by the stack, which did not restart).
        assert http.gateway("GET", f"/api/inventario/{created['id']}").json() == created
        [line] = [
            json.loads(line) for line in stack.output().splitlines() if "code changed" in line
        ]
        assert line["changed"] == [SERVICE]
        assert line["functions"] == ["NotificationFunction"]  # only the one it is code of
    finally:
        stack.stop()


def assert_502_at_once(stack, call) -> None:
    """502, for the import's own error, never a hang: a function whose code cannot import
    fails each call with its SyntaxError, where a hang would end in the function's
    timeout. Judged by the reason on the gateway's log line, not by seconds (a loaded
    machine's slow fork took 1 s, then more)."""
    since = len(stack.lines)
    answer = call()
    assert answer.status_code == 502, answer.text
    assert answer.json() == {"message": "Internal server error"}
    lines = stack.wait_for_lines(
        lambda lines: any("SyntaxError" in line and "reason" in line for line in lines),
        timeout=30,
        since=since,
    )
    assert not any("Runtime.Timeout" in line for line in lines), lines


def test_broken_code_answers_502_at_once_for_its_functions_only_until_fixed(copy):
    stack, http = started(copy, "1")
    try:
        routes = copy / "functions/inventory/routes.py"
        source = routes.read_text()
        routes.write_text(source + "\ndef broken(:\n")
        stack.wait_for_line(lambda line: "code changed" in line, timeout=30)
        for _ in range(2):
            assert_502_at_once(stack, lambda: http.gateway("GET", "/api/inventario"))
        assert stack.find("SyntaxError"), stack.output()  # the reason, on the stack's log
        # The other functions never noticed.
        assert http.gateway("GET", "/api/pedidos").status_code == 200
        assert http.notify("GET", HEALTH).status_code == 200
        routes.write_text(source)
        deadline = time.monotonic() + 30
        while http.gateway("GET", "/api/inventario").status_code != 200:
            assert time.monotonic() < deadline, stack.output()
            time.sleep(0.1)
    finally:
        stack.stop()


def test_broken_code_in_the_layer_fails_fast_too_and_waits_for_the_fix(copy):
    stack, http = started(copy, "1")
    try:
        layer = copy / "layers/common/common/http/responses.py"
        source = layer.read_text()
        layer.write_text(source + "\ndef broken(:\n")
        stack.wait_for_line(lambda line: "code changed" in line, timeout=30)
        assert_502_at_once(stack, lambda: http.notify("GET", HEALTH))
        layer.write_text(source)
        edit(copy, SERVICE, '"notification-service UP"', '"notification-service FIXED"')
        assert health_becomes(http, "notification-service FIXED", timeout=30), stack.output()
    finally:
        stack.stop()


def test_RELOAD_0_keeps_the_code_it_started_with(copy):
    stack, http = started(copy, "0")
    try:
        edit(copy, SERVICE, '"notification-service UP"', '"notification-service RELOADED"')
        assert not health_becomes(http, "notification-service RELOADED", timeout=10 * POLL_SECONDS)
        assert "Reload:        off" in stack.output()
    finally:
        stack.stop()
