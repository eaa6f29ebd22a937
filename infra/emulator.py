"""moto's server on 127.0.0.1, standing in for DynamoDB on a laptop and in tests.

moto is not thread-safe: its backend checks a condition and writes in separate steps,
so two threads can both pass `attribute_not_exists`. Real DynamoDB applies each request
atomically; serializing requests restores exactly that, and the emulator is fast enough
that one at a time costs nothing a developer notices.
"""

import threading

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import make_server


class _OneRequestAtATime:
    def __init__(self, app):
        self._app = app
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        with self._lock:
            # Drain the response inside the lock: the write may happen while iterating.
            return list(self._app(environ, start_response))


class _QuietRequestHandler(MotoRequestHandler):
    """The emulator is plumbing: its per-call access log would drown the services' own."""

    def log_request(self, *args, **kwargs):
        pass


class Emulator:
    def __init__(self, port: int = 0):
        app = _OneRequestAtATime(DomainDispatcherApplication(create_backend_app))
        self._server = make_server("127.0.0.1", port, app, threaded=True,
                                   request_handler=_QuietRequestHandler)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="aws-emulator", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "Emulator":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
