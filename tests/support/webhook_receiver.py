"""A webhook endpoint a test runs on 127.0.0.1 (a free port): it keeps every delivery it
receives and answers as the test scripts it (a status, a hang, a reset connection, a
redirect), and checks signatures the way docs/api.md tells integrators to, written
apart from the platform's own signing."""

import base64
import hashlib
import hmac
import json
import socket
import struct
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HANG, RESET, REDIRECT = "hang", "reset", "redirect"


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]  # lower-case names
    body: bytes
    at: float

    @property
    def id(self) -> str:
        return self.headers["webhook-id"]

    @property
    def event(self) -> dict:
        return json.loads(self.body)

    @property
    def signatures(self) -> list[str]:
        return self.headers["webhook-signature"].split(" ")


def verified(secret: str, delivery: Received, tolerance_seconds: int = 300) -> bool:
    """docs/api.md's check: one of the v1 signatures is the HMAC-SHA256 of
    "{id}.{timestamp}.{body}" with the secret's key, and the timestamp is recent."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    timestamp = delivery.headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > tolerance_seconds:
        return False
    signed = f"{delivery.id}.{timestamp}.".encode() + delivery.body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(
        hmac.compare_digest(expected, sig.split(",", 1)[1])
        for sig in delivery.signatures
        if sig.startswith("v1,")
    )


class Receiver:
    """`answers`: what each delivery gets, in turn (a status or HANG, RESET, REDIRECT);
    once used up, `then` (200 by default)."""

    def __init__(self, *answers: int | str, then: int | str = 200):
        self.received: list[Received] = []
        # The deliveries it held (HANG) whose sender gave up on them, by webhook-id.
        self.given_up: list[str] = []
        self._answers, self._then = list(answers), then
        self._lock = threading.Condition()
        self._stopped = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                delivery = Received(headers, body, time.time())
                receiver._answer(self, delivery, receiver._record(delivery))

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer_from_now(self, answer: int | str) -> None:
        """What every later delivery gets (a receiver that was down, back up)."""
        with self._lock:
            self._answers, self._then = [], answer

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks?from=test"

    def _record(self, delivery: Received) -> int | str:
        with self._lock:
            self.received.append(delivery)
            self._lock.notify_all()
            return self._answers.pop(0) if self._answers else self._then

    def _answer(self, handler: BaseHTTPRequestHandler, delivery: Received, answer: int | str):
        if answer == HANG:
            self._hold(handler.connection, delivery)
            return
        if answer == RESET:
            # Closed with an RST, no answer: as a crashing receiver's connection ends.
            handler.connection.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
            )
            handler.close_connection = True
            return
        status = 302 if answer == REDIRECT else int(answer)
        handler.send_response(status)
        if answer == REDIRECT:
            handler.send_header("Location", self.url + "&redirected=1")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def _hold(self, connection: socket.socket, delivery: Received) -> None:
        """No answer, for 30 s or until the sender gives up (its end of the connection
        closed: noted in `given_up`), whichever comes first."""
        connection.settimeout(0.2)
        deadline = time.monotonic() + 30
        while not self._stopped.is_set() and time.monotonic() < deadline:
            try:
                if connection.recv(1) == b"":
                    break
            except TimeoutError:
                continue
            except OSError:  # reset
                break
        else:
            return
        with self._lock:
            self.given_up.append(delivery.id)

    def wait_for(self, count: int, timeout: float = 30.0, of_type: str | None = None) -> list:
        """The deliveries (of one event type, if given) once there are `count`."""

        def matching() -> list[Received]:
            return [d for d in self.received if of_type is None or d.event["type"] == of_type]

        with self._lock:
            self._lock.wait_for(lambda: len(matching()) >= count, timeout)
            found = matching()
        assert len(found) >= count, f"{len(found)} of {count} deliveries: {found}"
        return found

    def stop(self) -> None:
        self._stopped.set()
        self.server.shutdown()
        self.server.server_close()
