"""Bearer tokens for the local stack, valid 24 hours (`make token` prints one: infra/tokens.py)."""

import time

import jwt

from authorizer.tokens import ALGORITHM, MAX_LIFETIME_SECONDS
from common.callers import CUSTOMER, OPERATOR
from common.keys import FixedRing, Key
from common.settings import Settings

LOCAL_SUBJECT = "developer@localhost"
TOKEN_TTL_SECONDS = MAX_LIFETIME_SECONDS


def issue(
    subject: str,
    key: Key,
    ttl_seconds: int = TOKEN_TTL_SECONDS,
    role: str = OPERATOR,
    user_id: int | None = None,
) -> str:
    """A token of `subject` with `role` (a customer's carries its `user_id`), signed with
    `key` and naming its version."""
    now = int(time.time())
    claims = {"sub": subject, "role": role, "iat": now, "exp": now + ttl_seconds}
    if role == CUSTOMER or user_id is not None:
        claims["userId"] = user_id
    return jwt.encode(claims, key.secret, algorithm=ALGORITHM, headers={"kid": key.kid})


def local_token(
    settings: Settings,
    subject: str = LOCAL_SUBJECT,
    role: str = OPERATOR,
    user_id: int | None = None,
) -> str:
    return issue(subject, FixedRing(settings.jwt_secret).signing(), role=role, user_id=user_id)
