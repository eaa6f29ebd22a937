"""What a new user of a fresh clone sees, typing what the README says: the first `make`,
`make run` and Ctrl-C, `make emulators` with `chalice local --stage local`, and
`chalice package` / `chalice deploy`, which must never leave a broken deployment."""

import json
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
from tests.support import processes
from tests.support.checkout import copy_checkout, fresh_terminal_env
from tests.support.raw_http import first_reads
from tests.support.stack_process import READY_TIMEOUT_SECONDS

FIRST_RUN = "Creating .venv and installing dependencies, about 15 seconds, once."
USER_ENV = fresh_terminal_env()


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

    def wait_for(self, pattern: str, timeout: float = READY_TIMEOUT_SECONDS) -> re.Match:
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
    make = subprocess.Popen(
        ["make", "-s", "token"],
        cwd=clone,
        env=USER_ENV,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
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
    clone, _, _, stderr, stdout = fresh
    (_, first_line), *_ = stderr.lines
    # Said before anything was installed (seen: whether the venv was there when the line
    # came; no time bound, which a busy machine stretched past 5 s while make found its
    # Python); then nothing more: the install is quiet.
    assert first_line == FIRST_RUN
    assert stderr.seen[0] is False
    assert [line for _, line in stderr.lines] == [FIRST_RUN], stderr.text()
    assert len(stdout.splitlines()) == 1 and stdout.count(".") == 2  # one line: a JWT

    again = subprocess.run(
        ["make", "-s", "token"],
        cwd=clone,
        env=USER_ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.stderr == "" and len(again.stdout.splitlines()) == 1


def test_make_run_ends_with_the_urls_a_token_the_docs_and_where_the_data_is_and_ctrl_c_keeps_it(
    fresh, tmp_path
):
    clone = fresh[0]
    env = {
        **USER_ENV,
        "GATEWAY_PORT": "0",
        "NOTIFICATION_PORT": "0",
        "DYNAMODB_PORT": "0",
        "LAMBDA_PORT": "0",
        "LOCAL_DATA_DIR": str(tmp_path),
        "PYTHONUNBUFFERED": "1",
    }
    run = processes.start(
        ["make", "-s", "run"],
        cwd=clone,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    out = Lines(run.stdout)
    try:
        out.wait_for(r"^Ready\. Ctrl-C stops everything\.$")
        banner = [line for _, line in out.lines]
        # The banner's lines; the JSON lines around it are the functions' logs (their
        # init's rehearsals, as on Lambda).
        heads = [
            line.split(":")[0]
            for line in banner[: banner.index("Ready. Ctrl-C stops everything.")]
            if not line.startswith("{")
        ]
        assert heads == [
            "Gateway",
            "Notifications",
            "Docs",
            "Console",
            "DynamoDB",
            "Lambda",
            "Token",
            "Try",
            "Data",
            "Migrations",
            "Reload",
        ]
        gateway = out.wait_for(r"^Gateway:\s+(http\S+)")[1]
        token = out.wait_for(r"^Token:\s+(\S+)")[1]
        assert out.wait_for(r"^Docs:\s+(\S+)")[1] == f"{gateway}/docs"
        assert out.wait_for(r"^Data:\s+(\S+)")[1] == str(tmp_path)
        created = requests.post(
            f"{gateway}/api/inventario",
            timeout=60,
            headers={"Authorization": f"Bearer {token}"},
            json={
                "sku": "CTRL-C",
                "nombre": "Caja",
                "precioUnitario": 1,
                "stockActual": 1,
                "umbralMinimo": 0,
            },
        )
        assert created.status_code == 201
    finally:
        # What Ctrl-C does: SIGINT to the whole foreground group.
        processes.stop(run, signal.SIGINT, group=True, timeout=30)
    assert "Stopped." in out.text()
    saved = json.loads((tmp_path / "dynamodb.json").read_text())
    assert [item["sku"]["S"] for item in saved["tables"]["ProductsTable"]] == ["CTRL-C"]


def chalice(clone: Path, *args: str, env: dict | None = None, timeout: float = 120):
    """`.venv/bin/chalice args` in the clone, to its end (its process group stopped if it
    does not end in `timeout`): (exit status, stdout, stderr)."""
    process = processes.start(
        [".venv/bin/chalice", *args],
        cwd=clone,
        env={**USER_ENV, **(env or {})},
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        processes.stop(process)
        raise AssertionError(f"chalice {' '.join(args)} did not end in {timeout} s") from None
    processes.stop(process)
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)


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
    result = chalice(
        clone,
        "deploy",
        env={
            "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
            "AWS_SECRET_ACCESS_KEY": "example",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}",
        },
    )
    assert result.returncode != 0
    assert "make build" in result.stderr and "sam deploy" in result.stderr
    assert not (clone / ".chalice" / "deployments").exists()
    assert not (clone / ".chalice" / "deployed").exists()


@pytest.mark.parametrize("stage", [(), ("--stage", "dev")], ids=["no stage", "dev"])
@pytest.mark.parametrize("reload", [(), ("--no-autoreload",)], ids=["reloader", "no reloader"])
def test_chalice_local_without_the_local_stage_says_how_to_run_it_and_fails(fresh, stage, reload):
    result = chalice(fresh[0], "local", *stage, *reload, "--port", str(free_port()), timeout=60)
    assert NOT_LOCAL_STAGE in result.stderr
    assert result.returncode != 0


PAIRS = 20


def test_chalice_local_and_make_emulators_on_ports_set_only_by_environment_variables(fresh):
    """The two terminals of docs/development.md, on ports none of the tracked files name,
    with the data in the checkout and Chalice's reloader on (its defaults)."""
    clone = fresh[0]
    ports = {
        name: str(free_port())
        for name in ("GATEWAY_PORT", "NOTIFICATION_PORT", "DYNAMODB_PORT", "LAMBDA_PORT")
    }
    emulators = processes.start(
        ["make", "-s", "emulators"],
        cwd=clone,
        env={**USER_ENV, **ports, "PYTHONUNBUFFERED": "1"},
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    stack = Lines(emulators.stdout)
    stack.wait_for(r"^Ready\.")
    token = stack.wait_for(r"^Token:\s+(\S+)")[1]
    # Terminal 2 runs what terminal 1 said, and has none of the ports in its environment.
    command = stack.wait_for(r"^Gateway:.*run `([^`]+)`")[1]
    server = processes.start(
        ["bash", "-c", command],
        cwd=clone,
        text=True,
        env={**USER_ENV, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    served = Lines(server.stdout)
    served.wait_for(r"Serving on")
    base = f"http://127.0.0.1:{ports['GATEWAY_PORT']}"
    bearer = {"Authorization": f"Bearer {token}"}
    failed = []
    for n in range(PAIRS):
        try:
            created = requests.post(
                f"{base}/api/inventario",
                headers=bearer,
                timeout=60,
                json={
                    "sku": f"PAIR-{n}",
                    "nombre": "Caja",
                    "precioUnitario": 1,
                    "stockActual": 5,
                    "umbralMinimo": 0,
                },
            )
            read = requests.get(
                f"{base}/api/inventario/{created.json()['id']}", headers=bearer, timeout=10
            )
            if (created.status_code, read.status_code) != (201, 200):
                failed.append((n, created.status_code, read.status_code))
        except (requests.RequestException, ValueError, KeyError) as exc:
            failed.append((n, repr(exc)))
        time.sleep(0.1)  # a user's pace: the data is saved in between
    assert failed == [], served.text()
    assert (clone / ".local-data" / "dynamodb.json").exists()  # in the checkout, watched
    refused = requests.get(
        f"{base}/api/inventario", timeout=60, headers={"Authorization": "Bearer not-a-token"}
    )
    assert (refused.status_code, refused.json()) == (401, {"message": "Unauthorized"})
    # The root needs no token here either (no /docs page under chalice local).
    root = requests.get(f"{base}/", timeout=60)
    assert (root.status_code, root.json()["name"], root.json()["docs"]) == (
        200,
        "logistics-gateway",
        None,
    )
    order = requests.post(
        f"{base}/api/pedidos",
        headers=bearer,
        timeout=60,
        json={
            "userId": 1,
            "userEmail": "ana@example.com",
            "clienteNombre": "Ana",
            "total": 1,
            "tipoPedido": "NACIONAL",
            "destino": "Lima",
            "productoId": 1,
            "cantidad": 1,
        },
    )
    # The stock check went to chalice local itself, on the port it was given.
    assert order.status_code == 201, order.text
    # A kept-alive client (the stock check's pool, a browser) gets each answer whole at
    # once, not its body 40 ms behind its head.
    read = (
        f"GET /api/inventario/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n"
    ).encode()
    answers = first_reads(base, read, times=3)
    assert [(status, len(body)) for status, body, _ in answers] == [
        (200, length) for _, _, length in answers
    ], answers
    # The event went through the Lambda stand-in to the notification service.
    stack.wait_for(f'^(?=.*"route":"/notificaciones")(?=.*"pedidoId":{order.json()["id"]},)')
    output = served.text()
    assert "Restarting local dev server" not in output
    assert "pynamo" not in output.lower()
    processes.stop(server, signal.SIGINT, group=True)
    processes.stop(emulators, signal.SIGINT, group=True)
    assert "Stopped." in stack.text()
