"""One attempt over HTTP: the URL's host looked up and checked by the targets' guard, then
a JSON POST to the address it checked; all of it within TIMEOUT_SECONDS from the
attempt's start (the lookup, the connection and the answer share one deadline),
redirects never followed, the answer's body never read.

The connection goes to the checked address (common.webhooks.targets), not to whatever the name
resolves to by then; TLS is verified against the URL's host name, which is also the
Host header. A receiver that drips its answer a byte at a time cannot hold an attempt
past the deadline: a timer shuts the socket when it comes. A name whose lookup hangs
holds only its own attempt (common.webhooks.targets.resolve).
"""

import contextlib
import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass

from common.webhooks import targets
from common.webhooks.targets import Target

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


def deliver(
    url: str,
    local: bool,
    headers: dict[str, str],
    body: bytes,
    seconds: float = TIMEOUT_SECONDS,
    resolve: targets.Resolver = targets.resolve,
) -> Sent:
    """One attempt to `url` (a target refused now, or a name that does not resolve, is
    not contacted and counts as a failed attempt), within `seconds` in all."""
    started = time.monotonic()
    try:
        target, address = targets.checked(url, local, resolve, timeout=seconds)
    except targets.OutOfTime:
        why = f"no answer within {seconds:g} s (its host's name did not resolve)"
        return Sent(None, why, _ms(started))
    except targets.Refused as why:
        return Sent(None, f"not delivered: the url {why}", _ms(started))
    return _post(target, address, headers, body, started, seconds)


def post(
    target: Target,
    address: str,
    headers: dict[str, str],
    body: bytes,
    timeout: float = TIMEOUT_SECONDS,
) -> Sent:
    """A POST to a checked address, within `timeout` seconds from now."""
    return _post(target, address, headers, body, time.monotonic(), timeout)


def _post(
    target: Target,
    address: str,
    headers: dict[str, str],
    body: bytes,
    started: float,
    seconds: float,
) -> Sent:
    deadline = started + seconds
    try:
        status = _exchange(target, address, headers, body, deadline)
        error = None
    except (OSError, http.client.HTTPException) as exc:
        status, error = None, _why(exc, time.monotonic() >= deadline, seconds)
    return Sent(status, error, _ms(started))


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


def _exchange(
    target: Target, address: str, headers: dict[str, str], body: bytes, deadline: float
) -> int:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("no time left to connect")
    sock = socket.create_connection((address, target.port), timeout=left)
    # Past the deadline the socket is shut, whatever the receiver is doing (the TLS one
    # once it is wrapped: wrapping takes the plain one's descriptor).
    held = [sock]
    timer = threading.Timer(max(0.0, deadline - time.monotonic()), lambda: _shut(held[0]))
    timer.daemon = True
    timer.start()
    try:
        connection: http.client.HTTPConnection
        timeout = max(0.001, deadline - time.monotonic())
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
        timer.cancel()
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
