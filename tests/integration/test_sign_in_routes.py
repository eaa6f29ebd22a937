"""Signing in through the gateway app in-process (chalice.test), against the template's
user pool in the emulator: the calls the sign-in function makes are the ones its role and
the layer allow (conftest), and a pool that is down or misbehaves is a 503, never a 500."""

import http.server
import socket
import threading

import jwt
import pytest

from tests.support.api import body
from tests.support.endpoints import point

PASSWORD = "A-long-Passphrase-2026"


def test_a_registered_customer_signs_in_and_its_token_has_a_customers_rights(signing_in):
    made = signing_in.post(
        "/api/auth/register", {"email": "In.Process@Example.com", "password": PASSWORD}, token=None
    )
    assert made.status_code == 201, made.body
    account = body(made)
    assert account["email"] == "in.process@example.com" and account["rol"] == "customer"
    answer = signing_in.post(
        "/api/auth/login", {"email": "in.process@example.com", "password": PASSWORD}, token=None
    )
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].startswith("text/plain")
    token = answer.body.decode()
    claims = jwt.decode(token, options={"verify_signature": False})
    # The template's trigger's claim, added by the emulator as Cognito adds it on AWS.
    assert (claims["token_use"], claims["userId"]) == ("access", str(account["userId"]))
    assert signing_in.get("/api/pedidos", token=token).status_code == 200
    refused = signing_in.post("/api/inventario", {"sku": "X"}, token=token)
    assert refused.status_code == 403


def test_an_email_is_one_account_whatever_its_unicode_form(signing_in):
    """Fullwidth letters are the same email as their ASCII (NFKC), stored and shown so."""
    made = signing_in.post(
        "/api/auth/register",
        {"email": "\uff2e\uff26\uff2b\uff23.Form@Example.com", "password": PASSWORD},
        token=None,
    )
    assert made.status_code == 201, made.body
    assert body(made)["email"] == "nfkc.form@example.com"
    again = signing_in.post(
        "/api/auth/register", {"email": "nfkc.form@example.com", "password": PASSWORD}, token=None
    )
    assert (again.status_code, body(again)["error"]) == (409, "EMAIL_TAKEN")
    answer = signing_in.post(
        "/api/auth/login",
        {"email": "NFKC.FORM@EXAMPLE.COM", "password": PASSWORD},
        token=None,
    )
    assert answer.status_code == 200


def test_every_answer_of_the_sign_in_routes_is_never_stored(signing_in):
    """A token (or an account) in a shared cache would be anyone's: Cache-Control: no-store
    on every answer of /api/auth/*, its errors too."""
    email = "no.store@example.com"
    answers = [
        signing_in.post("/api/auth/register", {"email": email, "password": PASSWORD}, token=None),
        signing_in.post("/api/auth/register", {"email": email, "password": PASSWORD}, token=None),
        signing_in.post("/api/auth/register", {"email": "x"}, token=None),
        signing_in.post("/api/auth/login", {"email": email, "password": PASSWORD}, token=None),
        signing_in.post("/api/auth/login", {"email": email, "password": "Wrong-1"}, token=None),
        signing_in.post("/api/auth/login", raw=b"{", token=None),
    ]
    assert [a.status_code for a in answers] == [201, 409, 400, 200, 401, 400]
    assert [a.headers.get("Cache-Control") for a in answers] == ["no-store"] * len(answers)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Broken(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(500)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html>not a pool</html>")

    def log_message(self, *args):
        pass


@pytest.fixture
def broken_pool():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Broken)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize("where", ["unreachable", "failing"])
def test_a_pool_down_or_failing_is_503_with_retry_after_never_500(
    gateway, pool, monkeypatch, broken_pool, where
):
    url = broken_pool if where == "failing" else f"http://127.0.0.1:{_closed_port()}"
    point(monkeypatch, "COGNITO_IDENTITY_PROVIDER", url)
    api = gateway(**{**pool.environment(), "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER": url})
    for path, sent in (
        ("/api/auth/login", {"email": "down@example.com", "password": "whatever"}),
        ("/api/auth/register", {"email": "down@example.com", "password": PASSWORD}),
    ):
        answer = api.post(path, sent, token=None)
        assert answer.status_code == 503, answer.body
        assert answer.headers["Cache-Control"] == "no-store"
        assert body(answer)["error"] == "SIGN_IN_UNAVAILABLE"
        assert int(answer.headers["Retry-After"]) >= 1


def test_a_stack_without_a_pool_answers_503_not_500(gateway):
    answer = gateway().post(
        "/api/auth/login", {"email": "a@example.com", "password": "x"}, token=None
    )
    assert answer.status_code == 503
    assert body(answer)["error"] == "SIGN_IN_UNAVAILABLE"


def test_revoking_an_account_refuses_its_token_and_its_sign_in(signing_in, pool):
    """common.identity.accounts.revoke, as erasure will call it, against the emulator's pool."""
    import boto3

    from common.identity.accounts import revoke

    email = "revoked@example.com"
    assert (
        signing_in.post(
            "/api/auth/register", {"email": email, "password": PASSWORD}, token=None
        ).status_code
        == 201
    )
    sent = {"email": email, "password": PASSWORD}
    token = signing_in.post("/api/auth/login", sent, token=None).body.decode()
    revoke(boto3.client("cognito-idp", endpoint_url=pool.url), pool.id, email)
    assert signing_in.get("/api/pedidos", token=token).status_code == 401
    refused = signing_in.post("/api/auth/login", sent, token=None)
    assert (refused.status_code, body(refused)["error"]) == (401, "INVALID_CREDENTIALS")


def motos_published_key() -> dict:
    """The private key moto's package ships for its user pools (anyone can read it)."""
    import gzip
    import importlib.resources
    import json

    shipped = importlib.resources.files("moto.cognitoidp") / "resources" / "jwks-private.json.gz"
    return json.loads(gzip.decompress(shipped.read_bytes()))


def test_a_token_signed_with_motos_published_key_is_refused(signing_in, pool):
    """moto ships its user pools' private key (its package's jwks-private.json): signed
    with it, anyone could mint an operator's token for a developer's stack. The
    emulator's pool signs with a key of its own and publishes that one alone."""
    import json
    import time
    import urllib.request

    from joserfc import jwk
    from joserfc import jwt as jose_jwt

    email = "forger.target@example.com"
    signing_in.post("/api/auth/register", {"email": email, "password": PASSWORD}, token=None)
    now = int(time.time())
    claims = {
        "sub": "forged",
        "iss": pool.issuer,
        "client_id": pool.client_id,
        "token_use": "access",
        "username": email,  # an account that exists, as the account check asks
        "cognito:groups": ["operators"],
        "iat": now,
        "exp": now + 600,
    }
    moto_key = jwk.RSAKey.import_key(motos_published_key())
    forged = jose_jwt.encode({"kid": "dummy", "alg": "RS256"}, claims, moto_key)
    made = signing_in.post("/api/inventario", {"sku": "FORGED"}, token=forged)
    assert made.status_code == 401, made.body
    published = json.load(urllib.request.urlopen(pool.jwks_url, timeout=10))  # noqa: S310
    moto_public = moto_key.as_dict(private=False)
    assert [key["n"] for key in published["keys"]] != [moto_public["n"]]


def test_a_wrong_password_and_an_unknown_email_do_the_same_work(
    signing_in, pool, emulator, aws_calls, monkeypatch, tmp_path
):
    """Counted, not timed (issue 59 measured the wrong password twice as slow): each
    sign-in makes the same AWS calls (the attempt counted on the same table, then one
    call to the pool, nothing else), and the pool hashes one password for each (the
    wrong one's check against the account's hash; for an email no one has, the same
    hash all the same), so the time tells a guesser nothing about who has an account.
    The pool keeps its users hashed in a data directory, as `make run`'s does."""
    import hashlib
    import uuid

    from infra.local.persistence import DataDir
    from infra.local.user_pool import PoolUsers

    app = emulator._app
    monkeypatch.setattr(app, "users", PoolUsers(DataDir(tmp_path), pool.region, pool.id))
    operations: list[str] = []
    real_user_pool, real_scrypt = app._user_pool, hashlib.scrypt

    def counted_user_pool(environ, start_response, operation, body):
        operations.append(operation)
        return real_user_pool(environ, start_response, operation, body)

    def counted_scrypt(*args, **kwargs):
        operations.append("scrypt")
        return real_scrypt(*args, **kwargs)

    monkeypatch.setattr(app, "_user_pool", counted_user_pool)
    monkeypatch.setattr(hashlib, "scrypt", counted_scrypt)
    email = f"same-work-{uuid.uuid4().hex[:8]}@example.com"
    made = signing_in.post("/api/auth/register", {"email": email, "password": PASSWORD}, token=None)
    assert made.status_code == 201, made.body
    work, calls = {}, {}
    for kind, tried in (("wrong password", email), ("unknown email", f"no-{email}")):
        operations.clear()
        aws_calls.clear()
        answer = signing_in.post(
            "/api/auth/login", {"email": tried, "password": "Wrong-Password-2026"}, token=None
        )
        assert answer.status_code == 401
        work[kind] = list(operations)
        calls[kind] = [(service, op, sent.get("TableName")) for service, op, sent in aws_calls]
    assert work["wrong password"] == work["unknown email"] == ["AdminInitiateAuth", "scrypt"]
    assert (
        calls["wrong password"]
        == calls["unknown email"]
        == [
            ("dynamodb", "GetItem", "SignInAttemptsTable"),  # the try counted, whoever the email
            ("dynamodb", "PutItem", "SignInAttemptsTable"),
            ("cognito-idp", "AdminInitiateAuth", None),
        ]
    ), calls
