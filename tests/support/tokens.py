"""Bearer tokens good and bad, for the authorizer's tests, and the key they are signed with."""

import base64
import json
import secrets
import time

import jwt

# The tests' own key, new each run (the platform has none built in): tests/conftest.py
# gives it to the apps the tests build in-process (JWT_SECRET), StackProcess to the stacks
# they start, so any test may sign any token for either.
SECRET = secrets.token_urlsafe(48).encode()


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def make_token(secret=SECRET, **claims) -> str:
    now = int(time.time())
    payload = {"sub": "ana@example.com", "iat": now, "exp": now + 60, **claims}
    return jwt.encode({k: v for k, v in payload.items() if v is not None}, secret, "HS256")


def unsigned_token() -> str:
    return f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64({'sub': 'ana@example.com'})}."


def tampered_token() -> str:
    header, _, signature = make_token().split(".")
    return f"{header}.{_b64({'sub': 'admin@example.com'})}.{signature}"


BAD_HEADERS = {
    "other scheme": f"Basic {make_token()}",
    "no scheme": make_token(),
    "empty bearer": "Bearer ",
    "malformed": "Bearer not-a-jwt",
    "wrong key": f"Bearer {make_token(secret=b'another-secret-that-is-32-bytes-long!')}",
    "alg none": f"Bearer {unsigned_token()}",
    "tampered payload": f"Bearer {tampered_token()}",
    "expired": f"Bearer {make_token(exp=int(time.time()) - 10)}",
    "not yet valid": f"Bearer {make_token(nbf=int(time.time()) + 3600)}",
    "no subject": f"Bearer {make_token(sub=None)}",
    "HS512 with the right key": "Bearer "
    + jwt.encode(
        {"sub": "ana@example.com"}, SECRET + b"-padded-for-hs512-key-length-rules", "HS512"
    ),
}


def unregistered_user_id() -> int:
    """A userId far above those registrations take from the counter: an order for one of
    those, on a stack another file registers accounts on, is 409 USER_EMAIL_MISMATCH
    once a registration has taken it."""
    return 900_000 + secrets.randbelow(99_999)
