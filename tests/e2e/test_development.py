"""What a new user of a fresh clone sees, typing what the README says: the first `make`,
`make run` and Ctrl-C, `make emulators` with `chalice local --stage local`, and
`chalice package` / `chalice deploy`, which must never leave a broken deployment."""

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
import requests

from infra.chalice_local import NOT_LOCAL_STAGE
from tests.support.checkout import copy_checkout
from tests.support.stack_process import StackProcess

FIRST_RUN = "Creating .venv and installing dependencies, about 15 seconds, once."
# No make of ours, no venv: a terminal on a fresh machine.
USER_ENV = {name: value for name, value in os.environ.items()
            if name not in {"MAKEFLAGS", "MAKELEVEL", "MFLAGS", "VIRTUAL_ENV", "SAM_VENV",
                            "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_LAMBDA"}}


class Lines:
    """A stream's lines as they come, each with when it came (and, given `seen`, what it
    said when the line came)."""

    def __init__(self, stream, seen=None):
        self.lines: list[tuple[float, str]] = []
        self.seen: list = []
        self._thread = threading.Thread(target=self._read, args=(stream, seen), daemon=True)
        self._thread.start()

    def _read(self, stream, seen) -> None:
        for line in stream:
            self.lines.append((time.monotonic(), line.rstrip("\n")))
            if seen:
                self.seen.append(seen())

    def text(self) -> str:
        self._thread.join(timeout=5)
        return "\n".join(line for _, line in self.lines)

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for _, line in list(self.lines):
                if found := re.search(pattern, line):
                    return found
            time.sleep(0.05)
        raise AssertionError(f"no line matching {pattern!r} in:\n" + self.text())


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A fresh clone after its first command, `make -s token`: what it printed, and when."""
    clone = copy_checkout(tmp_path_factory.mktemp("clone"))
    started = time.monotonic()
    make = subprocess.Popen(["make", "-s", "token"], cwd=clone, env=USER_ENV, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Whether the installer was there yet when each line came (uv is the install's first
    # step, after the venv itself).
    stderr = Lines(make.stderr, lambda: (clone / ".venv" / "bin" / "uv").exists())
    stdout = make.stdout.read()
    assert make.wait(timeout=600) == 0, stderr.text()
    return clone, started, time.monotonic(), stderr, stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_first_make_says_what_it_is_doing_before_it_goes_quiet(fresh):
    clone, started, _, stderr, stdout = fresh
    (said_at, first_line), *_ = stderr.lines
    # Said at once, before anything was installed; then nothing more: the install is quiet.
    assert first_line == FIRST_RUN and said_at - started < 5
    assert stderr.seen[0] is False
    assert [line for _, line in stderr.lines] == [FIRST_RUN], stderr.text()
    assert len(stdout.splitlines()) == 1 and stdout.count(".") == 2  # one line: a JWT

    again = subprocess.run(["make", "-s", "token"], cwd=clone, env=USER_ENV,
                           capture_output=True, text=True, timeout=120)
    assert again.stderr == "" and len(again.stdout.splitlines()) == 1


def test_make_run_ends_with_the_urls_a_token_the_docs_and_where_the_data_is_and_ctrl_c_keeps_it(
        fresh, tmp_path):
    clone = fresh[0]
    env = {**USER_ENV, "GATEWAY_PORT": "0", "NOTIFICATION_PORT": "0", "DYNAMODB_PORT": "0",
           "LAMBDA_PORT": "0", "LOCAL_DATA_DIR": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    run = subprocess.Popen(["make", "-s", "run"], cwd=clone, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           start_new_session=True)
    out = Lines(run.stdout)
    try:
        out.wait_for(r"^Ready\. Ctrl-C stops everything\.$")
        banner = [line for _, line in out.lines]
        # The banner's lines; the JSON lines around it are the functions' logs (their
        # init's rehearsals, as on Lambda).
        heads = [line.split(":")[0] for line in banner[:banner.index(
            "Ready. Ctrl-C stops everything.")] if not line.startswith("{")]
        assert heads == ["Gateway", "Notifications", "Docs", "Console", "DynamoDB", "Lambda",
                         "Token", "Try", "Data", "Reload"]
        gateway = out.wait_for(r"^Gateway:\s+(http\S+)")[1]
        token = out.wait_for(r"^Token:\s+(\S+)")[1]
        assert out.wait_for(r"^Docs:\s+(\S+)")[1] == f"{gateway}/docs"
        assert out.wait_for(r"^Data:\s+(\S+)")[1] == str(tmp_path)
        created = requests.post(f"{gateway}/api/inventario", timeout=10,
                                headers={"Authorization": f"Bearer {token}"},
                                json={"sku": "CTRL-C", "nombre": "Caja", "precioUnitario": 1,
                                      "stockActual": 1, "umbralMinimo": 0})
        assert created.status_code == 201
    finally:
        os.killpg(run.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group
        run.wait(timeout=30)
    assert "Stopped." in out.text()
    saved = json.loads((tmp_path / "dynamodb.json").read_text())
    assert [item["sku"]["S"] for item in saved["tables"]["ProductsTable"]] == ["CTRL-C"]


def chalice(clone: Path, *args: str, env: dict | None = None, timeout: float = 120):
    return subprocess.run([".venv/bin/chalice", *args], cwd=clone, env={**USER_ENV, **(env or {})},
                          capture_output=True, text=True, timeout=timeout)


def test_chalice_package_stops_pointing_to_the_sam_release_and_builds_nothing(fresh, tmp_path):
    clone = fresh[0]
    result = chalice(clone, "package", str(tmp_path / "out"))
    assert result.returncode != 0
    assert "make build" in result.stderr and "sam deploy" in result.stderr
    assert not (tmp_path / "out").exists()
    assert not (clone / ".chalice" / "deployments").exists()


def test_chalice_deploy_stops_before_building_or_calling_aws(fresh):
    clone = fresh[0]
    # Credentials that work nowhere, and AWS at a closed port: nothing may reach out.
    result = chalice(clone, "deploy", env={
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "example",
        "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"})
    assert result.returncode != 0
    assert "make build" in result.stderr and "sam deploy" in result.stderr
    assert not (clone / ".chalice" / "deployments").exists()
    assert not (clone / ".chalice" / "deployed").exists()


def test_chalice_local_without_the_local_stage_says_how_to_run_it(fresh):
    result = chalice(fresh[0], "local", "--port", str(free_port()), timeout=60)
    assert NOT_LOCAL_STAGE in result.stderr


def test_chalice_local_stage_local_serves_the_gateway_against_make_emulators(fresh):
    clone = fresh[0]
    emulators = StackProcess(args=("--emulators",), root=clone).start()
    port = free_port()
    # The stage points at the emulators' fixed ports; this run's are free ones.
    config_file = clone / ".chalice" / "config.json"
    config = json.loads(config_file.read_text())
    stage = config["stages"]["local"]["environment_variables"]
    stage.update({"AWS_ENDPOINT_URL_DYNAMODB": emulators.dynamodb,
                  "AWS_ENDPOINT_URL_LAMBDA": emulators.lambda_url,
                  "INVENTORY_SERVICE_URL": f"http://127.0.0.1:{port}"})
    config_file.write_text(json.dumps(config))
    server = subprocess.Popen([".venv/bin/chalice", "local", "--stage", "local", "--port",
                               str(port)], cwd=clone, env=USER_ENV, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              start_new_session=True)
    out = Lines(server.stdout)
    base = f"http://127.0.0.1:{port}"
    try:
        out.wait_for(r"Serving on")
        bearer = {"Authorization": f"Bearer {emulators.token}"}
        assert requests.get(f"{base}/api/inventario", headers=bearer, timeout=10).json() == []
        refused = requests.get(f"{base}/api/inventario", timeout=10,
                               headers={"Authorization": "Bearer not-a-token"})
        assert (refused.status_code, refused.json()) == (401, {"message": "Unauthorized"})
        product = requests.post(f"{base}/api/inventario", headers=bearer, timeout=10, json={
            "sku": "CHALICE-LOCAL", "nombre": "Caja", "precioUnitario": 1, "stockActual": 5,
            "umbralMinimo": 0}).json()
        order = requests.post(f"{base}/api/pedidos", headers=bearer, timeout=10, json={
            "userId": 1, "userEmail": "ana@example.com", "clienteNombre": "Ana", "total": 1,
            "tipoPedido": "NACIONAL", "destino": "Lima", "productoId": product["id"],
            "cantidad": 1})
        assert order.status_code == 201, order.text
        # The event went through the Lambda stand-in to the notification service.
        emulators.wait_for_line(lambda line: '"route":"/notificaciones"' in line
                                and f'"pedidoId":{order.json()["id"]}' in line)
    finally:
        os.killpg(server.pid, signal.SIGINT)
        server.wait(timeout=30)
        emulators.stop()
