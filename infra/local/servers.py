"""One way to run a local server: serve from a daemon thread, tell its URL, stop it."""

import json
import socketserver
import threading
from collections.abc import Callable
from typing import Self


class BackgroundServer:
    """A server answering from a daemon thread until stopped.

    Every local server (the DynamoDB emulator, the Lambda invoke stand-in, the apps, the
    test fakes) starts, tells its URL and stops this way; `stop` frees the port, waits
    for the serving thread, and then runs `on_stop` for what the server owns besides.
    """

    def __init__(
        self,
        address: tuple,
        serve: Callable[[], None],
        shutdown: Callable[[], object],
        name: str,
        on_stop: Callable[[], None] | None = None,
    ):
        self.url = f"http://{address[0]}:{address[1]}"
        self._shutdown = shutdown
        self._on_stop = on_stop
        self._thread = threading.Thread(target=serve, name=name, daemon=True)

    @classmethod
    def of(
        cls, server: socketserver.TCPServer, name: str, on_stop: Callable[[], None] | None = None
    ) -> "BackgroundServer":
        def shutdown():
            server.shutdown()
            server.server_close()

        return cls(
            server.server_address,
            lambda: server.serve_forever(poll_interval=0.05),
            shutdown,
            name,
            on_stop,
        )

    @property
    def serving(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._shutdown()
        self._thread.join(timeout=10)
        if self._on_stop is not None:
            self._on_stop()


def json_answer(start_response, status: str, content: dict) -> list[bytes]:
    """A WSGI answer of JSON, as AWS's JSON APIs (DynamoDB's) answer."""
    body = json.dumps(content).encode("utf-8")
    start_response(
        status, [("Content-Type", "application/x-amz-json-1.0"), ("Content-Length", str(len(body)))]
    )
    return [body]
