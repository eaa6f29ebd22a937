"""`make run` reloads the apps' code when a file under functions/ or layers/ changes, and
keeps the data; RELOAD=0 keeps the code it started with. Each test edits a copy of the
checkout, never the one under test."""

import time

import pytest

from infra.local.reload import POLL_SECONDS
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
        created = http.gateway("POST", "/api/inventario", json={
            "sku": "RELOAD-1", "nombre": "Caja", "precioUnitario": 1, "stockActual": 1,
            "umbralMinimo": 0}).json()
        assert http.notify("GET", HEALTH).text == "notification-service UP"
        edit(copy, SERVICE, '"notification-service UP"', '"notification-service RELOADED"')
        assert health_becomes(http, "notification-service RELOADED", timeout=30), stack.output()
        # Same ports, same data (held in memory by the stack, which did not restart).
        assert http.gateway("GET", f"/api/inventario/{created['id']}").json() == created
        assert stack.find(r'"message":"code changed: restarting the apps".*' + SERVICE)
    finally:
        stack.stop()


def test_a_change_under_layers_reloads_too_and_broken_code_waits_for_the_fix(copy):
    stack, http = started(copy, "1")
    try:
        layer = copy / "layers/common/common/responses.py"
        source = layer.read_text()
        layer.write_text(source + "\nthis is not Python\n")
        stack.wait_for_line(lambda line: "the apps did not start" in line, timeout=30)
        layer.write_text(source)
        edit(copy, SERVICE, '"notification-service UP"', '"notification-service FIXED"')
        assert health_becomes(http, "notification-service FIXED", timeout=30), stack.output()
    finally:
        stack.stop()


def test_RELOAD_0_keeps_the_code_it_started_with(copy):
    stack, http = started(copy, "0")
    try:
        edit(copy, SERVICE, '"notification-service UP"', '"notification-service RELOADED"')
        assert not health_becomes(http, "notification-service RELOADED",
                                  timeout=10 * POLL_SECONDS)
        assert "Reload:        off" in stack.output()
    finally:
        stack.stop()
