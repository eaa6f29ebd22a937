"""Real HTTP servers with scripted behaviour, for what the platform calls over the network."""

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from infra.local.servers import BackgroundServer


class ScriptedServer:
    """Answers every request with `status` and `body`, or never answers when `hang`.

    It records each request's path and headers, so tests can see what reached it.
    """

    def __init__(self, status: int = 200, body: str = "true", hang: bool = False):
        self.status, self.body, self.hang = status, body, hang
        self.requests: list[tuple[str, dict]] = []
        self.held = 0  # requests being held unanswered (`hang`) right now
        self._lock = threading.Lock()
        self._release = threading.Event()
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        server.daemon_threads = True
        self._background = BackgroundServer.of(server, "scripted").start()
        self.url = self._background.url

    def stop(self) -> None:
        self._release.set()  # hung handlers first, or closing would wait on them
        self._background.stop()

    def _hold(self) -> None:
        """No answer, for 30 s or until the server stops."""
        with self._lock:
            self.held += 1
        self._release.wait(30)
        with self._lock:
            self.held -= 1

    def _handler(self):
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                scripted.requests.append((self.path, dict(self.headers)))
                if scripted.hang:
                    scripted._hold()
                    return
                data = scripted.body.encode()
                self.send_response(scripted.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        return Handler


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens: connections are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def elapsed(func, *args, **kwargs):
    started = time.perf_counter()
    result = func(*args, **kwargs)
    return result, time.perf_counter() - started
