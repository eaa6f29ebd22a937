"""One webhook attempt over the network: over https it checks the receiver's certificate
against the system's CA store (loaded at the first https delivery, not at init), so a
receiver on 127.0.0.1 with a certificate nobody signed is refused before a byte of the
event is sent; and one deadline covers the name's lookup, the connection and the answer."""

import datetime
import socket
import ssl
import threading
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from common.webhooks.targets import Target
from tests.support.webhook_receiver import HANG, Receiver
from webhook_delivery import sender


def self_signed(directory) -> tuple[str, str]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hooks.example.com")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("hooks.example.com")]), False)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_file), str(key_file)


@pytest.fixture
def tls_receiver(tmp_path):
    """A TLS server on a free port of 127.0.0.1 that records whatever bytes reach it."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*self_signed(tmp_path))
    listener = socket.create_server(("127.0.0.1", 0))
    received: list[bytes] = []

    def serve() -> None:
        conn, _ = listener.accept()
        try:
            with context.wrap_socket(conn, server_side=True) as tls:
                received.append(tls.recv(65536))
        except (ssl.SSLError, OSError):
            pass  # the client gave up during the handshake

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], received
    thread.join(timeout=5)
    listener.close()


def test_a_receiver_whose_certificate_nobody_signed_gets_nothing(tls_receiver):
    port, received = tls_receiver
    target = Target(scheme="https", host="hooks.example.com", port=port, path="/hook")
    sent = sender.post(target, "127.0.0.1", {"webhook-id": "evt_1"}, b'{"a":1}', timeout=5)
    assert sent.status is None
    assert sent.error is not None and "CERTIFICATE_VERIFY_FAILED" in sent.error
    assert received == []


def test_one_deadline_covers_the_lookup_the_connection_and_the_answer(monkeypatch):
    """A name that takes a second to resolve, then a receiver that never answers: the
    connection is given what the lookup left of the attempt's deadline, not a deadline of
    its own (judged by what it was given, not by how long the attempt took, which a
    loaded machine stretches)."""
    receiver = Receiver(HANG)
    given: list[float] = []
    connect = socket.create_connection

    def slow(host, port, *args, **kwargs):
        time.sleep(1.0)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    def connecting(address, timeout, *args, **kwargs):
        given.append(timeout)
        return connect(address, timeout, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    monkeypatch.setattr(socket, "create_connection", connecting)
    try:
        url = receiver.url.replace("127.0.0.1", "hooks.example.com")
        sent = sender.deliver(url, True, {"webhook-id": "evt_1"}, b'{"a":1}', seconds=3)
    finally:
        receiver.stop()
    assert (sent.status, sent.error) == (None, "no answer within 3 s")
    assert len(given) == 1 and given[0] <= 3 - 1.0, given  # what the lookup's second left
    assert sent.duration_ms >= 3000  # and it waited out the whole deadline
    assert len(receiver.received) == 1  # it was reached, and held the attempt


def test_a_lookup_that_outlasts_the_deadline_ends_the_attempt_at_it(monkeypatch):
    """The lookup's own answer (a failure, after a minute) is never waited for: the
    attempt ends as out of time, and says that the name did not resolve."""

    released, answered = threading.Event(), threading.Event()

    def hangs(host, port, *args, **kwargs):
        released.wait(60)
        answered.set()
        raise socket.gaierror("never")

    monkeypatch.setattr(socket, "getaddrinfo", hangs)
    try:
        sent = sender.deliver("https://hooks.example.com/x", False, {}, b"{}", seconds=1)
        # The witness is that the lookup had not answered yet when the attempt ended, not
        # a bound in seconds, which a loaded machine stretches.
        assert not answered.is_set()
    finally:
        released.set()
    assert sent.status is None
    assert sent.error == "no answer within 1 s (its host's name did not resolve)"
    assert sent.duration_ms >= 1000  # it waited out its deadline
