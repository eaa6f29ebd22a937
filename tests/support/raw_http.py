"""HTTP as bytes on a socket: for the requests a well-behaved client library never sends."""

import re
import socket
import time
from urllib.parse import urlsplit

STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3}) ")


def address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname, parts.port


# How long an exchange waits for the server to close the connection: every request these
# helpers send ends with one the server closes after answering (`Connection: close`, or a
# request it refuses), so this is only ever waited out by a server that hangs; generous,
# as an answer from a cold function on a loaded machine can take seconds.
WAIT_SECONDS = 30.0


def exchange(url: str, raw: bytes, *, wait: float = WAIT_SECONDS) -> bytes:
    """Send `raw` on one connection; return every byte the server sent until it closed the
    connection or `wait` seconds passed."""
    with socket.create_connection(address(url), timeout=wait) as sock:
        sock.sendall(raw)
        return read_until_quiet(sock, wait)


def exchange_in_turn(url: str, raws: list[bytes], *, wait: float = WAIT_SECONDS) -> bytes:
    """Send each request on one connection once the answers before it are in (each one
    whole, by its Content-Length), the last one's connection closed by the server; every
    byte it sent. A request the server found inside another's body would be answered in
    its turn, before the next one sent."""
    with socket.create_connection(address(url), timeout=wait) as sock:
        received = b""
        for sent, raw in enumerate(raws, 1):
            sock.sendall(raw)
            deadline = time.monotonic() + wait
            while len(split_responses(received)[0]) < sent and time.monotonic() < deadline:
                chunk = read_some(sock)
                if chunk == b"":
                    return received
                received += chunk or b""
        return received + read_until_quiet(sock, wait)


def exchange_closing(url: str, raw: bytes, *, wait: float = WAIT_SECONDS) -> tuple[bytes, bool]:
    """Send `raw` on one connection and stop sending; return every byte the server sent
    within `wait` seconds, and whether it had closed the connection (not merely fallen
    quiet with it open)."""
    with socket.create_connection(address(url), timeout=wait) as sock:
        sock.sendall(raw)
        received = read_until_quiet(sock, wait)
        sock.settimeout(0.2)
        try:
            closed = sock.recv(1) == b""
        except TimeoutError:
            closed = False
        except ConnectionResetError:
            closed = True
    return received, closed


def read_some(sock: socket.socket) -> bytes | None:
    """What the next read brings within 0.2 s: None if nothing yet, b"" at the end."""
    sock.settimeout(0.2)
    try:
        return sock.recv(65536)
    except TimeoutError:
        return None
    except ConnectionResetError:
        return b""


def read_until_quiet(sock: socket.socket, wait: float) -> bytes:
    """Every byte until the server closes the connection, or `wait` seconds pass."""
    received = b""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        chunk = read_some(sock)
        if chunk == b"":
            break
        received += chunk or b""
    return received


def statuses(received: bytes) -> list[int]:
    return [int(code) for code in STATUS_LINE.findall(received)]


def split_responses(received: bytes) -> tuple[list[int], bytes]:
    """The statuses of the complete responses at the start of `received` (each framed by
    its Content-Length), and whatever bytes follow them that are not such a response."""
    found = []
    while True:
        head, sep, rest = received.partition(b"\r\n\r\n")
        match = STATUS_LINE.match(head)
        if not sep or not match:
            return found, received
        length = re.search(rb"(?im)^content-length: *(\d+)", head)
        size = int(length[1]) if length else 0
        found.append(int(match[1]))
        received = rest[size:]


def body_of(received: bytes) -> bytes:
    return received.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in received else b""


def request(
    method: str, path: str, *, headers: dict | None = None, body: bytes = b"", close: bool = True
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def first_reads(url: str, raw: bytes, times: int, wait: float = 10) -> list[tuple[int, bytes, int]]:
    """Send `raw` `times` on one kept-alive connection, reading once after each: (the
    status, the body bytes that first read held, the Content-Length its head announced).
    An answer written at once arrives whole in that read; one whose head and body were
    written apart waits, body behind head, for the client's delayed acknowledgement."""
    found = []
    with socket.create_connection(address(url), timeout=wait) as sock:
        for _ in range(times):
            sock.sendall(raw)
            head, _, body = sock.recv(65536).partition(b"\r\n\r\n")
            status = STATUS_LINE.match(head)
            length = re.search(rb"(?im)^content-length: *(\d+)", head)
            found.append((int(status[1]) if status else 0, body, int(length[1]) if length else -1))
    return found
