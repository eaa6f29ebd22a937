"""The local stack's HTTP server: waitress, with what API Gateway's front door does.

waitress gives a real listen backlog, chunked bodies read as bodies, a request-size limit
enforced before a body is read, and no thread held by a slow client. On top:

- its own answers (a malformed request, a body over the limit, headers too large, a
  transfer coding it does not implement) in the platform's error format;
- no byte after a request whose end is in doubt is read as another request: one with both
  Content-Length and Transfer-Encoding (or Transfer-Encoding in HTTP/1.0), and CONNECT,
  are answered and their connection closed; a folded Content-Length or Transfer-Encoding
  is refused (400); a chunk whose declared size puts the body over the limit is refused
  (413, or 400 for a size past 64 bits) as soon as that size is read, not after its bytes;
- no connection can keep another out: at the connection limit, the connection that has
  been idle longest (one that sent nothing, or half a request) is closed to make room, so
  a thousand idle or half-open connections never block the next client;
- idle connections closed after HTTP_IDLE_TIMEOUT_SECONDS.
"""

import socket
import time
from collections.abc import Callable
from http import HTTPStatus

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser, ParsingError
from waitress.receiver import ChunkedReceiver, FixedStreamReceiver
from waitress.server import create_server
from waitress.task import ErrorTask, WSGITask
from waitress.utilities import BadRequest, Error, RequestEntityTooLarge

from common.http.responses import error_response
from common.http.service_app import MAX_BODY_BYTES
from infra.local.servers import BackgroundServer
from infra.local.settings import DEFAULT_IDLE_TIMEOUT_SECONDS

# How long a stopping server waits for the requests it has received to be answered.
DRAIN_SECONDS = 5
# What a chunked body's framing may add to its 1 MiB before waitress stops reading it;
# each chunk's declared size is checked against the exact limit as it is read.
CHUNK_FRAMING_ALLOWANCE = 64 * 1024
# A body's chunk sizes adding up to this or more are no size at all: a malformed request.
CHUNK_SIZE_LIMIT = 2**64
# The headers that say where a body ends, as lowercase names.
FRAMING_HEADERS = frozenset({b"content-length", b"transfer-encoding"})
# Requests being answered at once; each waits on a function's environment, not the CPU.
THREADS = 64
CONNECTION_LIMIT = 2000
ACCEPT_BATCH = 64  # connections accepted a round of the loop (waitress: one, each polling all)


def platform_error(status: int, code: str, message: str, headers: dict | None = None):
    """(status, headers, body) of an error in the platform's format."""
    response = error_response(status, code, message, headers=headers)
    return status, response.headers, response.body.encode("utf-8")


def request_headers(environ) -> dict[str, str]:
    """A WSGI request's headers, by their lowercase names, as API Gateway passes them."""
    headers = {
        name[5:].replace("_", "-").lower(): value
        for name, value in environ.items()
        if name.startswith("HTTP_")
    }
    for name in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if environ.get(name):
            headers[name.replace("_", "-").lower()] = environ[name]
    return headers


def respond(start_response, method: str, status: int, headers: dict, body: bytes) -> list:
    """Send an answer through WSGI: a header with several values (a list) once per value,
    its length, and no body for HEAD."""
    start_response(
        f"{status} {HTTPStatus(status).phrase}",
        [
            (name, value)
            for name, values in headers.items()
            for value in (values if isinstance(values, list) else [values])
        ]
        + [("Content-Length", str(len(body)))],
    )
    return [b"" if method == "HEAD" else body]


class _PlatformErrorTask(ErrorTask):
    """waitress's own answers in the platform's error format instead of waitress's text."""

    CODES = {
        400: "BAD_REQUEST",
        413: "PAYLOAD_TOO_LARGE",
        431: "HEADERS_TOO_LARGE",
        501: "NOT_IMPLEMENTED",
    }

    def execute(self):
        error = self.request.error
        message = (
            f"The body is larger than {MAX_BODY_BYTES} bytes"
            if error.code == 413
            else f"{error.reason}: {error.body}"
        )
        status, headers, body = platform_error(
            error.code, self.CODES.get(error.code, "BAD_REQUEST"), message
        )
        self.status = f"{status} {error.reason}"
        self.response_headers.extend(headers.items())
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


def framing_headers(header_plus: bytes) -> frozenset[bytes]:
    """Which of FRAMING_HEADERS a request's head has. One of them folded onto a next line
    (obs-fold, which waitress would join into one value) is a ParsingError: 400."""
    found: set[bytes] = set()
    name = b""
    for line in header_plus.split(b"\r\n")[1:]:
        if line.startswith((b" ", b"\t")):
            if name in FRAMING_HEADERS:
                raise ParsingError(f"Folded {name.decode()} header")
            continue
        name = line.split(b":", 1)[0].lower()
        if name in FRAMING_HEADERS:
            found.add(name)
    return frozenset(found)


class _BoundedChunkedReceiver(ChunkedReceiver):
    """waitress's reader of a chunked body, refusing the body as soon as a chunk's size is
    read if that size puts it over the limit (413) or past any size (400), rather than
    waiting for bytes a client may never send."""

    error: Error | None
    chunk_remainder: int

    def received(self, s: bytes) -> int:
        consumed = super().received(s)
        declared = len(self) + self.chunk_remainder  # read, and still to come in this chunk
        if self.error is None and declared >= CHUNK_SIZE_LIMIT:
            self.error = BadRequest("Invalid chunk size")
        elif self.error is None and declared > MAX_BODY_BYTES:
            self.error = RequestEntityTooLarge(f"exceeds max_body of {MAX_BODY_BYTES}")
        return consumed


class _PlatformParser(HTTPRequestParser):
    """waitress's request parser, which also refuses a folded framing header, reads a
    chunked body with _BoundedChunkedReceiver, and marks for closing a connection whose
    request's end two readers could disagree on (RFC 9112 6.1: both Content-Length and
    Transfer-Encoding, or Transfer-Encoding in HTTP/1.0) or which asked for a tunnel
    (CONNECT, whose client may already be sending the tunnel's bytes)."""

    body_rcv: ChunkedReceiver | FixedStreamReceiver | None

    def parse_header(self, header_plus: bytes) -> None:
        framing = framing_headers(header_plus)
        super().parse_header(header_plus)
        if isinstance(self.body_rcv, ChunkedReceiver):
            self.body_rcv = _BoundedChunkedReceiver(self.body_rcv.getbuf())
        suspect = framing == FRAMING_HEADERS or (
            b"transfer-encoding" in framing and self.version != "1.1"
        )
        if suspect or self.command == "CONNECT":
            self.connection_close = True


class _PlatformTask(WSGITask):
    """waitress's WSGI task, closing the connection after the answer when the parser says
    so (waitress 3.0.2 sets the parser's `connection_close` but never reads it)."""

    def build_response_header(self) -> bytes:
        if self.request.connection_close:
            self.set_close_on_finish()
        return super().build_response_header()


class _PlatformChannel(HTTPChannel):
    parser_class = _PlatformParser
    task_class = _PlatformTask
    error_task_class = _PlatformErrorTask


def _busy(channel) -> bool:
    """Whether a connection has a request being answered, or an answer still to send."""
    return bool(getattr(channel, "requests", None) or getattr(channel, "total_outbufs_len", 0))


def _make_room(server) -> None:
    """Wraps the server's `readable` and `handle_accept`: ACCEPT_BATCH accepted a round, at
    the limit too, and for each one over it the connection idle longest marked for closing
    (not closed: this round's events may still name its socket's number, which the next one
    accepted would be given; its own channel closes it on the next round)."""
    readable, accept, limit = server.readable, server.handle_accept, server.adj.connection_limit

    def idle() -> list[HTTPChannel]:
        channels = list(server._map.values())
        return [c for c in channels if isinstance(c, HTTPChannel) and not _busy(c)]

    def accept_waiting() -> None:
        for _ in range(ACCEPT_BATCH):
            before = len(server._map)
            accept()
            if len(server._map) == before:
                return  # none waiting (or one gone before it was accepted)
            if len(server._map) > limit and (free := [c for c in idle() if not c.will_close]):
                min(free, key=lambda c: c.last_activity).will_close = True

    server.readable = lambda: readable() or (server.accepting and bool(idle()))
    server.handle_accept = accept_waiting


class _LateApp:
    """The WSGI app of a server bound before its app exists."""

    app: Callable  # set by AppServer.serve, before the server runs

    def __call__(self, environ, start_response):
        return self.app(environ, start_response)


class AppServer:
    """An HTTP server on 127.0.0.1 for one WSGI app.

    The port is bound first and the app given later, because an app may need to know its
    own URL (a page that names the server's address).
    """

    def __init__(
        self,
        port: int = 0,
        idle_timeout: int = DEFAULT_IDLE_TIMEOUT_SECONDS,
        sock: socket.socket | None = None,
    ):
        """Listens on 127.0.0.1:`port`, or on `sock`, a listening socket of the stack's."""
        self._app = _LateApp()
        where = {"sockets": [sock]} if sock is not None else {"host": "127.0.0.1", "port": port}
        self._server = create_server(
            self._app,
            **where,
            threads=THREADS,
            backlog=1024,
            connection_limit=CONNECTION_LIMIT,
            asyncore_use_poll=True,
            channel_timeout=idle_timeout,
            cleanup_interval=max(1, idle_timeout // 2),
            max_request_body_size=MAX_BODY_BYTES + CHUNK_FRAMING_ALLOWANCE,
            ident="",
        )
        self._server.channel_class = _PlatformChannel
        _make_room(self._server)  # one listening socket: waitress's server is its own
        address = (self._server.effective_host, self._server.effective_port)
        self.background = BackgroundServer(
            address, self._server.run, self._shutdown, f"http-{address[1]}"
        )
        self.url = self.background.url

    def serve(self, app) -> BackgroundServer:
        self._app.app = app
        return self.background.start()

    def close(self) -> None:
        """Release the port of a server that never started serving."""
        self._shutdown()

    def _drain(self) -> None:
        """Take no new connection, and let the requests already received be answered,
        for DRAIN_SECONDS at most."""
        self._server.accepting = False
        # Wake the serving loop from a poll that still includes the listening socket.
        self._server.trigger.pull_trigger()
        time.sleep(0.05)
        deadline = time.monotonic() + DRAIN_SECONDS
        while time.monotonic() < deadline and any(map(_busy, [*self._server._map.values()])):
            time.sleep(0.05)

    def _shutdown(self) -> None:
        if self.background.serving:
            self._drain()
        self._server.close()
        wasyncore.close_all(self._server._map)
        self._server.task_dispatcher.shutdown()
