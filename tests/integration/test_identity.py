"""Who may call the gateway, as deployed: keys read from Secrets Manager, and tokens from
an OIDC issuer (RS256, its JWKS served here on 127.0.0.1 by a test server)."""

import base64
import contextlib
import hashlib
import hmac
import json
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from authorizer import oidc
from authorizer.shared_key import SharedKeyVerifier
from common.http.lists import Lists
from common.platform import aws
from common.platform.env import ConfigError
from common.platform.keys import PROPAGATION_SECONDS, SecretRing, jwt_keys, page_token_keys
from common.platform.settings import Cloud, Tokens
from infra.dev.tokens import issue
from infra.local.servers import BackgroundServer
from key_rotation.rotation import STEPS, rotate
from tests.support.api import body
from tests.support.endpoints import point
from tests.support.settings import every
from tests.support.tokens import make_token

JWT_KEY = "a-generated-jwt-signing-key-of-64-characters-0123456789abcdefghij"
PAGE_KEY = "a-generated-page-token-key-of-64-characters-0123456789abcdefghijk"
CLIENT_ID = "app-client-7"


@pytest.fixture
def secrets(emulator, monkeypatch):
    """Secrets Manager (moto, in the emulator) holding the two keys, as the template
    generates them."""
    point(monkeypatch, "SECRETS_MANAGER", emulator.url)
    client = boto3.client("secretsmanager")
    ids = {}
    for name, value in (("stack/jwt-signing-key", JWT_KEY), ("stack/page-token-key", PAGE_KEY)):
        with contextlib.suppress(client.exceptions.ResourceNotFoundException):
            client.delete_secret(SecretId=name, ForceDeleteWithoutRecovery=True)
        ids[name] = client.create_secret(Name=name, SecretString=value)["ARN"]
    return client, ids["stack/jwt-signing-key"], ids["stack/page-token-key"]


def test_the_keys_are_read_from_their_secrets_and_kept(secrets):
    client, jwt_id, page_id = secrets
    settings = every(JWT_SECRET="", JWT_SECRET_ID=jwt_id, PAGE_TOKEN_KEY_ID=page_id)
    with aws.acting_as("AuthorizerFunction"):
        keys = jwt_keys(settings.tokens, settings.cloud)
        assert keys.signing().secret == JWT_KEY.encode()
        client.put_secret_value(SecretId=jwt_id, SecretString="x" * 64)
        assert keys.signing().secret == JWT_KEY.encode()  # kept: read once per 5 minutes
    with aws.acting_as("InventoryFunction"):
        assert page_token_keys(settings.pages, settings.cloud).signing().secret == PAGE_KEY.encode()


def test_an_api_functions_init_builds_no_secrets_client_its_first_page_does(secrets):
    """Most requests need no page token: the page key's client is built at its first
    read, and as the function whose lists it signs (its role's calls), whoever reads."""
    _, jwt_id, page_id = secrets
    settings = every(JWT_SECRET="", JWT_SECRET_ID=jwt_id, PAGE_TOKEN_KEY_ID=page_id)
    aws.forget()
    with aws.acting_as("InventoryFunction"):
        lists = Lists.from_settings(
            settings.pages, settings.cloud
        )  # as the function's init builds them
    assert aws.clients("secretsmanager") == []
    assert lists.token_keys.signing().secret == PAGE_KEY.encode()
    (built,) = aws.clients("secretsmanager")
    assert aws.owner(built) == "InventoryFunction"


def test_a_secret_too_short_to_sign_with_is_refused(secrets):
    client, jwt_id, _ = secrets
    client.put_secret_value(SecretId=jwt_id, SecretString="short")
    with (
        pytest.raises(ConfigError, match="fewer than 32 bytes"),
        aws.acting_as("AuthorizerFunction"),
    ):
        jwt_keys(Tokens.from_env({"JWT_SECRET_ID": jwt_id}), Cloud.from_env()).signing()


def test_rotating_the_key_refuses_no_token_before_during_or_after(secrets):
    """Three containers, each with its own cache of the key, read at different times; the
    key rotated by the rotation function, step by step, in the emulator's Secrets
    Manager. Tokens issued by any container at any moment are accepted by every one."""
    client, jwt_id, _ = secrets
    now = [time.time()]
    containers = [SecretRing(jwt_id, lambda: client, lambda: now[0]) for _ in range(3)]
    verifiers = [SharedKeyVerifier(ring) for ring in containers]
    issued = []

    def every_container_issues_and_accepts_every_token():
        issued.extend(issue(f"c{n}", ring.signing()) for n, ring in enumerate(containers))
        for verify in verifiers:
            assert [verify(token).sub for token in issued] == [
                jwt.decode(token, options={"verify_signature": False})["sub"] for token in issued
            ]

    every_container_issues_and_accepts_every_token()
    now[0] += 200  # the containers' caches are of different ages from here on
    verifiers[0](issue("late-reader", containers[0].signing()))
    version = str(uuid.uuid4())  # what Secrets Manager names a new version
    for step in STEPS:
        rotate(client, jwt_id, version, step)
        every_container_issues_and_accepts_every_token()
        now[0] += 150  # each container rereads on its own schedule meanwhile
        every_container_issues_and_accepts_every_token()
    now[0] += PROPAGATION_SECONDS
    every_container_issues_and_accepts_every_token()
    assert {jwt.get_unverified_header(token)["kid"] for token in issued[-3:]} == {version}
    stages = client.describe_secret(SecretId=jwt_id)["VersionIdsToStages"]
    assert stages[version] == ["AWSCURRENT"]


def test_a_rotation_step_run_twice_changes_nothing_more(secrets):
    client, _, page_id = secrets
    for step in STEPS:
        rotate(client, page_id, "6f1b2c3d-0000-4000-8000-000000000002", step)
        rotate(client, page_id, "6f1b2c3d-0000-4000-8000-000000000002", step)
    stages = client.describe_secret(SecretId=page_id)["VersionIdsToStages"]
    assert sorted(labels for labels in stages.values()) == [["AWSCURRENT"], ["AWSPREVIOUS"]]


def test_the_gateway_verifies_with_the_secrets_key_and_signs_pages_with_its_own(gateway, secrets):
    _, jwt_id, page_id = secrets
    api = gateway(JWT_SECRET="", JWT_SECRET_ID=jwt_id, PAGE_TOKEN_KEY_ID=page_id)
    assert api.get("/api/inventario", token=make_token()).status_code == 401  # the tests' key
    api.token = make_token(secret=JWT_KEY.encode())
    for n in range(3):
        api.post(
            "/api/inventario",
            {
                "sku": f"S-{n}",
                "nombre": "Caja",
                "precioUnitario": 1,
                "stockActual": 5,
                "umbralMinimo": 1,
            },
        )
    first = api.get("/api/inventario?limit=2")
    assert first.status_code == 200 and len(body(first)) == 2
    token = first.headers["X-Next-Token"]
    rest = api.get(f"/api/inventario?limit=2&nextToken={token}")
    assert rest.status_code == 200 and [p["sku"] for p in body(rest)] == ["S-2"]
    # A token signed with the local page key is not one this stage issued.
    local = gateway().get("/api/inventario?limit=2").headers["X-Next-Token"]
    assert api.get(f"/api/inventario?limit=2&nextToken={local}").status_code == 400


# -- OIDC ----------------------------------------------------------------------------------


class Issuer:
    """An OIDC issuer: an RSA key made here; its discovery document and its JWKS served on
    127.0.0.1, each request to them recorded."""

    def __init__(self, trailing_slash: bool = False):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.requests: list[str] = []
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                issuer.requests.append(self.path)
                documents = {
                    "/.well-known/openid-configuration": {
                        "issuer": issuer.url,
                        "jwks_uri": f"{base}/keys",
                    },
                    "/keys": {"keys": [{**jwk, "kid": "key-1", "use": "sig", "alg": "RS256"}]},
                }
                data = json.dumps(documents.get(self.path, {})).encode()
                self.send_response(200 if self.path in documents else 404)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = BackgroundServer.of(
            ThreadingHTTPServer(("127.0.0.1", 0), Handler), "issuer"
        ).start()
        base = self.server.url
        self.url = base + ("/" if trailing_slash else "")  # exactly as in `iss`

    def token(self, kid="key-1", key=None, algorithm="RS256", **claims) -> str:
        now = int(time.time())
        payload = {
            "sub": "user-42",
            "iss": self.url,
            "aud": CLIENT_ID,
            "iat": now,
            "exp": now + 300,
            "cognito:groups": ["operators"],
            **claims,
        }
        payload = {name: value for name, value in payload.items() if value is not None}
        # Signed as JSON of any shape: PyJWT's own encode refuses some bad claims (an `iss`
        # not a string) that an issuer's tokens must still be tested with.
        return jwt.api_jws.PyJWS().encode(
            json.dumps(payload).encode(), key or self.key, algorithm=algorithm, headers={"kid": kid}
        )

    def public_pem(self) -> bytes:
        return self.key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )


@pytest.fixture
def issuer():
    issuer = Issuer()
    yield issuer
    issuer.server.stop()  # stopping twice is harmless


@pytest.fixture
def oidc_api(gateway, issuer):
    return gateway(JWT_ISSUER=issuer.url, JWT_AUDIENCE=CLIENT_ID)


def status_with(api, token: str) -> int:
    api.token = token
    return api.get("/api/inventario").status_code


def test_a_token_from_the_issuer_for_this_client_is_accepted(oidc_api, issuer):
    assert status_with(oidc_api, issuer.token()) == 200
    # Cognito's access tokens name the client in client_id, and carry no aud.
    assert (
        status_with(oidc_api, issuer.token(aud=None, client_id=CLIENT_ID, token_use="access"))
        == 200
    )
    # The keys are found through discovery, fetched once, and kept.
    assert issuer.requests == ["/.well-known/openid-configuration", "/keys"]


def test_an_issuer_is_matched_exactly_trailing_slash_and_all(gateway):
    issuer = Issuer(trailing_slash=True)
    try:
        api = gateway(JWT_ISSUER=issuer.url, JWT_AUDIENCE=CLIENT_ID)
        assert status_with(api, issuer.token()) == 200
        assert status_with(api, issuer.token(iss=issuer.url.rstrip("/"))) == 401
    finally:
        issuer.server.stop()


def test_an_unreachable_issuer_is_a_server_failure_not_the_callers(gateway, issuer):
    api = gateway(JWT_ISSUER=issuer.url, JWT_AUDIENCE=CLIENT_ID)
    token = issuer.token()
    issuer.server.stop()
    assert status_with(api, token) >= 500


@pytest.mark.parametrize(
    "case",
    [
        "expired",
        "wrong issuer",
        "wrong audience",
        "no audience",
        "unknown kid",
        "other key",
        "no sub",
        "aud of another API",
        "id token",
        "client id without token use",
    ],
)
def test_a_bad_oidc_token_is_refused(oidc_api, issuer, case):
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = {
        "expired": lambda: issuer.token(exp=int(time.time()) - 10, iat=int(time.time()) - 400),
        "wrong issuer": lambda: issuer.token(iss="https://evil.example.com"),
        "wrong audience": lambda: issuer.token(aud="another-client"),
        "no audience": lambda: issuer.token(aud=None),
        "unknown kid": lambda: issuer.token(kid="key-9"),
        "other key": lambda: issuer.token(key=other),
        "no sub": lambda: issuer.token(sub=None),
        # aud names another API: our client_id beside it does not make it ours.
        "aud of another API": lambda: issuer.token(
            aud="https://other.api", client_id=CLIENT_ID, token_use="access"
        ),
        # Cognito's ID token: for the client application, not an API credential.
        "id token": lambda: issuer.token(token_use="id"),
        "client id without token use": lambda: issuer.token(aud=None, client_id=CLIENT_ID),
    }[case]()
    assert status_with(oidc_api, token) == 401


# Claims of the wrong type in a token the issuer signed: 401, never an authorizer error.
WRONG_TYPES = {
    "aud a number": {"aud": 42},
    "aud an object": {"aud": {CLIENT_ID: True}},
    "aud a list with a number": {"aud": [CLIENT_ID, 7]},
    "iss a list": {"iss": ["x"]},
    "exp a numeric string": {"exp": str(int(time.time()) + 300)},
    "token use a list": {"token_use": ["access"]},
    "groups a string": {"cognito:groups": "operators"},
    "user id an object": {"cognito:groups": None, "custom:userId": {"n": 1}},
}


@pytest.mark.parametrize("claims", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_an_issuers_claim_of_the_wrong_type_is_refused(oidc_api, issuer, claims):
    assert status_with(oidc_api, issuer.token(**claims)) == 401


def test_an_hs256_token_signed_with_the_issuers_public_key_is_refused(oidc_api, issuer):
    """Algorithm confusion: a verifier that let the token choose HS256 would check it
    with the public key as the shared secret, and anyone could sign."""
    now = int(time.time())
    token = hs256_by_hand(
        {"sub": "admin", "iss": issuer.url, "aud": CLIENT_ID, "exp": now + 300},
        issuer.public_pem(),
        {"kid": "key-1"},
    )
    assert status_with(oidc_api, token) == 401


def hs256_by_hand(claims: dict, key: bytes, header: dict) -> str:
    """A token signed with HS256 and any key, a public key's PEM included: PyJWT refuses
    such a key for HMAC (the very forgery it guards against), so it is signed here."""

    def part(data: bytes) -> bytes:
        return base64.urlsafe_b64encode(data).rstrip(b"=")

    head = part(json.dumps({"alg": "HS256", "typ": "JWT", **header}).encode())
    signing_input = head + b"." + part(json.dumps(claims).encode())
    signature = hmac.new(key, signing_input, hashlib.sha256).digest()
    return (signing_input + b"." + part(signature)).decode("ascii")


def test_with_an_issuer_the_shared_keys_tokens_pass_beside_its_own_each_by_its_alg(
    oidc_api, issuer, gateway
):
    # The tests' environment names a shared key (JWT_SECRET), as every stack does.
    assert status_with(oidc_api, make_token()) == 200
    assert status_with(oidc_api, issuer.token()) == 200
    # An algorithm neither verifier takes is refused before any key is looked at.
    assert status_with(oidc_api, jwt.encode({"sub": "x", "exp": 9e9}, "k" * 40, "HS512")) == 401
    # Without a shared key, the issuer's tokens alone.
    issuer_only = gateway(JWT_ISSUER=issuer.url, JWT_AUDIENCE=CLIENT_ID, JWT_SECRET="")
    assert status_with(issuer_only, make_token()) == 401
    assert status_with(issuer_only, issuer.token()) == 200


def test_an_issuer_needs_the_client_it_issues_for():
    with pytest.raises(ConfigError, match="JWT_AUDIENCE"):
        Tokens.from_env({"JWT_ISSUER": "https://cognito-idp.us-east-1.amazonaws.com/pool"})


# -- roles from the issuer's tokens, and its keys when it is down ---------------------------


def test_an_issuers_user_outside_the_operators_group_is_a_customer_by_its_user_id(oidc_api, issuer):
    oidc_api.token = issuer.token(**{"cognito:groups": None, "userId": "7"})
    assert oidc_api.post("/api/inventario", {"sku": "X"}).status_code == 403
    assert oidc_api.get("/api/pedidos").status_code == 200
    # Cognito's access token: the user's attribute, as the pre token trigger adds it
    assert (
        status_with(oidc_api, issuer.token(**{"cognito:groups": ["staff"], "custom:userId": "8"}))
        == 200
    )
    # a customer the token does not say the userId of may do nothing
    assert status_with(oidc_api, issuer.token(**{"cognito:groups": None})) == 401


def test_keys_already_fetched_keep_working_while_the_issuer_is_down(oidc_api, issuer, monkeypatch):
    monkeypatch.setattr(oidc, "JWKS_CACHE_SECONDS", 0)  # every request wants them afresh
    monkeypatch.setattr(oidc, "JWKS_RETRY_SECONDS", 0)
    assert status_with(oidc_api, issuer.token()) == 200
    issuer.server.stop()
    assert status_with(oidc_api, issuer.token()) == 200
    assert status_with(oidc_api, issuer.token(kid="key-9")) == 401
