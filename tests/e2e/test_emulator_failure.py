"""The AWS emulator's process (infra/local/aws_process.py) dying under a running stack
(`make run`): the stack notices and names the cause in its log; with a data directory it
restarts the emulator from its data on the same port, with the data in memory only it
stops and says why. Meanwhile the gateway answers 503 or serves the request once the
emulator is back, never 500, and an order's event is delivered or dead-lettered, never
lost. Each test starts a stack of its own, on free ports."""

import json
import os
import signal
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3
import requests

from tests.support.processes import emulator_of
from tests.support.stack_client import dead_letters, token
from tests.support.stack_process import StackClient, StackProcess

# How long the tests wait for the stack to say that its emulator died (it looks every
# 0.2 s), and to have it back (a restart starts moto and reads the data: about 1.5 s on a
# quiet machine). Deadlines for those lines, not targets: a loaded machine three times
# slower stretches both, and a stack that never says so fails all the same.
NOTICED_WITHIN_SECONDS = 30
RESTARTED_WITHIN_SECONDS = 90
# The emulator saves its tables at most a second behind (infra/local/persistence.py): a
# write answered this long before the kill is on disk.
SAVED_AFTER_SECONDS = 2.5
DIED = "the AWS emulator died (killed by SIGKILL)"
RESTARTED = "the AWS emulator restarted"


def product(sku: str) -> dict:
    return {
        "sku": sku,
        "nombre": "Caja",
        "precioUnitario": 2.5,
        "stockActual": 100,
        "umbralMinimo": 0,
    }


def started(env: dict | None = None) -> tuple[StackProcess, StackClient]:
    stack = StackProcess(env).start()
    return stack, StackClient(stack, token())


def kill_emulator(stack: StackProcess) -> tuple[int, float]:
    """kill -9 of the stack's emulator: its pid, and when."""
    pid = emulator_of(stack.proc.pid)
    assert pid is not None, stack.output()
    os.kill(pid, signal.SIGKILL)
    return pid, time.monotonic()


def read_until(stopped: threading.Event, http: StackClient, path: str, answers: list) -> None:
    """GET `path` again and again until `stopped`: each answer's status and body (0 and
    the error for no answer)."""
    while not stopped.is_set():
        try:
            response = http.gateway("GET", path)
        except requests.RequestException as exc:
            answers.append((0, repr(exc)))
            continue
        answers.append((response.status_code, response.text))


def test_a_killed_emulator_is_restarted_from_its_data_on_the_same_port(tmp_path):
    stack, http = started({"LOCAL_DATA_DIR": str(tmp_path)})
    stopped = threading.Event()
    try:
        kept = http.gateway("POST", "/api/inventario", json=product("KEPT-1")).json()
        time.sleep(SAVED_AFTER_SECONDS)
        answers: list[tuple[int, str]] = []
        readers = [
            threading.Thread(
                target=read_until, args=(stopped, http, f"/api/inventario/{kept['id']}", answers)
            )
            for _ in range(2)
        ]
        for reader in readers:
            reader.start()
        time.sleep(0.5)  # requests under way when it dies
        old, killed_at = kill_emulator(stack)
        died = stack.wait_for_line(lambda line: DIED in line, timeout=NOTICED_WITHIN_SECONDS)
        noticed = time.monotonic() - killed_at
        stack.wait_for_line(lambda line: RESTARTED in line, timeout=RESTARTED_WITHIN_SECONDS)
        restarted = time.monotonic() - killed_at
        time.sleep(0.5)  # requests answered by the new emulator too
        stopped.set()
        for reader in readers:
            reader.join()
        print(f"noticed after {noticed:.2f} s, restarted after {restarted:.2f} s")

        assert str(tmp_path) in died  # where it restarts from
        unexpected = [(status, body) for status, body in answers if status not in (200, 503)]
        assert not unexpected, (unexpected[:3], stack.trouble())  # the stack stops below
        for status, body in answers:
            if status == 503:
                assert json.loads(body)["error"] == "AWS_EMULATOR_UNAVAILABLE", body
        # The same port (the functions' endpoint, the banner's URL), a new process.
        assert emulator_of(stack.proc.pid) not in (None, old)
        dynamodb = boto3.client("dynamodb", endpoint_url=stack.dynamodb)
        assert "ProductsTable" in dynamodb.list_tables()["TableNames"]
        assert http.gateway("GET", f"/api/inventario/{kept['id']}").json()["sku"] == "KEPT-1"
        assert http.gateway("POST", "/api/inventario", json=product("AFTER-1")).status_code == 201
        assert "Exception in thread" not in stack.output()
    finally:
        stopped.set()
        stack.stop()


def test_with_its_data_in_memory_a_killed_emulator_stops_the_stack_saying_why():
    """Nothing to restore: a stack that went on with empty tables would answer 404 for
    what was just created. It stops, non-zero, and says why in one line."""
    stack, _ = started()
    try:
        kill_emulator(stack)
        assert stack.proc.wait(timeout=NOTICED_WITHIN_SECONDS + 15) != 0
        said = stack.wait_for_line(lambda line: line.startswith("Stopped:"))
        assert DIED in said and "in memory only" in said, said
    finally:
        stack.stop()


def test_the_notification_health_answers_as_documented_and_the_log_names_the_dead_emulator(
    tmp_path,
):
    """The notification service needs no AWS service: its health stays 200 (docs/api.md),
    and the stack's own log, not the health route, says that the emulator died."""
    stack, http = started({"LOCAL_DATA_DIR": str(tmp_path)})
    try:
        kill_emulator(stack)
        until = time.monotonic() + 2
        while time.monotonic() < until:
            health = http.notify("GET", "/notificaciones/health")
            assert (health.status_code, health.text) == (200, "notification-service UP")
            time.sleep(0.1)
        stack.wait_for_line(lambda line: DIED in line, timeout=NOTICED_WITHIN_SECONDS)
        stack.wait_for_line(lambda line: RESTARTED in line, timeout=RESTARTED_WITHIN_SECONDS)
        assert http.notify("GET", "/notificaciones/health").status_code == 200
    finally:
        stack.stop()


class RefusingNotifications(BaseHTTPRequestHandler):
    """A notification service that refuses every event (500). Before answering the third
    try it calls `on_third`, which kills the stack's emulator: the listener's last try
    then fails, and the local Lambda service sends the event to its dead-letter queue
    while the emulator holding that queue is dead."""

    tries = 0
    on_third: Callable[[], object] = staticmethod(lambda: None)

    def do_POST(self):  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).tries += 1
        if type(self).tries == 3:
            type(self).on_third()
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_an_event_whose_dead_lettering_meets_a_dead_emulator_is_kept_and_dead_lettered(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), RefusingNotifications)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    stack, http = started({"LOCAL_DATA_DIR": str(tmp_path), "NOTIFICATION_SERVICE_URL": url})
    RefusingNotifications.tries = 0
    RefusingNotifications.on_third = staticmethod(lambda: kill_emulator(stack))
    try:
        stocked = http.gateway("POST", "/api/inventario", json=product("EVENT-1")).json()
        order = http.gateway(
            "POST",
            "/api/pedidos",
            json={
                "userId": 1,
                "userEmail": "ana@example.com",
                "clienteNombre": "Ana",
                "tipoPedido": "NACIONAL",
                "destino": "Lima",
                "productoId": stocked["id"],
                "cantidad": 1,
                "total": 2.5,
            },
        )
        assert order.status_code == 201, order.text
        # Tried three times (the third killed the emulator), then kept until the queue
        # is back and sent there.
        stack.wait_for_line(lambda line: "sent to its dead-letter queue" in line, timeout=60)
        assert RefusingNotifications.tries >= 3
        stack.wait_for_line(lambda line: DIED in line)
        listed = [json.loads(line) for line in dead_letters(stack, "list").stdout.splitlines()]
        assert [letter["event"]["pedidoId"] for letter in listed] == [order.json()["id"]]
        assert listed[0]["attempts"] == 3
        assert "Exception in thread" not in stack.output()
    finally:
        stack.stop()
        server.shutdown()
        server.server_close()
