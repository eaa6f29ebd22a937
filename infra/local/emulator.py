"""moto's server on 127.0.0.1, standing in for DynamoDB on a laptop and in tests.

moto is not thread-safe: its backend checks a condition and writes in separate steps,
so two threads can both pass `attribute_not_exists`. Real DynamoDB applies each request
atomically; serializing requests restores exactly that.
"""

import threading

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import make_server

from infra.local.servers import BackgroundServer


class OneRequestAtATime:
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


def emulator(port: int = 0) -> BackgroundServer:
    app = OneRequestAtATime(DomainDispatcherApplication(create_backend_app))
    server = make_server("127.0.0.1", port, app, threaded=True,
                         request_handler=_QuietRequestHandler)
    return BackgroundServer(server, "aws-emulator")
