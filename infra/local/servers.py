"""One way to run a local server: serve from a daemon thread, tell its URL, stop it."""

import socketserver
import threading
from collections.abc import Callable


class BackgroundServer:
    """A socketserver answering from a daemon thread until stopped.

    Every local server (the DynamoDB emulator, the Lambda invoke stand-in, the apps, the
    test fakes) starts, tells its URL and stops this way; `stop` frees the port and then
    runs `on_stop` for what the server owns besides its socket.
    """

    def __init__(self, server: socketserver.BaseServer, name: str,
                 on_stop: Callable[[], None] | None = None):
        self._server = server
        self._on_stop = on_stop
        self._thread = threading.Thread(target=server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, name=name, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "BackgroundServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._on_stop is not None:
            self._on_stop()
