"""One attempt over HTTP: a JSON POST to the address the targets' guard checked, within
TIMEOUT_SECONDS in all, redirects never followed, the answer's body never read.

The connection goes to the checked address (webhooks.targets), not to whatever the name
resolves to by then; TLS is verified against the URL's host name, which is also the
Host header. A receiver that drips its answer a byte at a time cannot hold an attempt
past the timeout: a timer shuts the socket when it runs out.
"""

import contextlib
import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass

from webhooks.targets import Target

TIMEOUT_SECONDS = 10.0
USER_AGENT = "logistics-webhooks/1.0"
_tls: ssl.SSLContext | None = None
_tls_lock = threading.Lock()


def _tls_context() -> ssl.SSLContext:
    """The system's CA store, loaded at the first https delivery, once: about 20 ms, which
    at init put the function's cold start at 1.5x of the baseline (a queue's batch, which
    nobody waits on, pays it instead)."""
    global _tls
    with _tls_lock:
        if _tls is None:
            _tls = ssl.create_default_context()
        return _tls


@dataclass(frozen=True)
class Sent:
    """What came back: a status, or why none did (`error`); and how long it took."""

    status: int | None
    error: str | None
    duration_ms: int


def post(
    target: Target,
    address: str,
    headers: dict[str, str],
    body: bytes,
    timeout: float = TIMEOUT_SECONDS,
) -> Sent:
    started = time.monotonic()
    try:
        status = _exchange(target, address, headers, body, timeout)
        error = None
    except (OSError, http.client.HTTPException) as exc:
        status, error = None, _why(exc, time.monotonic() - started >= timeout, timeout)
    return Sent(status, error, round((time.monotonic() - started) * 1000))


def _exchange(
    target: Target, address: str, headers: dict[str, str], body: bytes, timeout: float
) -> int:
    sock = socket.create_connection((address, target.port), timeout=timeout)
    # Past the deadline the socket is shut, whatever the receiver is doing (the TLS one
    # once it is wrapped: wrapping takes the plain one's descriptor).
    held = [sock]
    deadline = threading.Timer(timeout, lambda: _shut(held[0]))
    deadline.daemon = True
    deadline.start()
    try:
        connection: http.client.HTTPConnection
        if target.scheme == "https":
            sock = held[0] = _tls_context().wrap_socket(sock, server_hostname=target.host)
            connection = http.client.HTTPSConnection(target.host, target.port, timeout=timeout)
        else:
            connection = http.client.HTTPConnection(target.host, target.port, timeout=timeout)
        connection.sock = sock  # connected to the checked address: no second lookup
        connection.request(
            "POST",
            target.path,
            body=body,
            headers={
                **headers,
                "Content-Type": "application/json",
                "User-Agent": USER_AGENT,
                "Connection": "close",
            },
        )
        return connection.getresponse().status
    finally:
        deadline.cancel()
        sock.close()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


def _why(exc: Exception, out_of_time: bool, timeout: float) -> str:
    """What went wrong, in a few words for the attempts' list."""
    if out_of_time or isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ConnectionResetError | http.client.RemoteDisconnected):
        return "connection reset"
    if isinstance(exc, ssl.SSLError):
        return f"TLS: {exc.reason or exc}"[:200]
    return f"{type(exc).__name__}: {exc}"[:200]
