"""Bearer tokens for the local stack, valid 24 hours (`make token` prints one: infra/tokens.py)."""

import time

import jwt

from authorizer.tokens import ALGORITHM
from common.settings import Settings

LOCAL_SUBJECT = "developer@localhost"
LOCAL_TOKEN_TTL_SECONDS = 24 * 3600


def issue(subject: str, secret: bytes, ttl_seconds: int = LOCAL_TOKEN_TTL_SECONDS) -> str:
    now = int(time.time())
    return jwt.encode({"sub": subject, "iat": now, "exp": now + ttl_seconds},
                      secret, algorithm=ALGORITHM)


def local_token(settings: Settings) -> str:
    return issue(LOCAL_SUBJECT, settings.jwt_secret)

