"""Bearer tokens for the local stack, valid 24 hours (`make token` prints one:
infra/tokens.py; `make run`'s banner another), signed with the stack's key
(infra/local/signing_key.py)."""

import os
import time
from collections.abc import Mapping

import jwt

from authorizer.claims import MAX_LIFETIME_SECONDS
from authorizer.shared_key import ALGORITHM
from common.identity.callers import CUSTOMER, OPERATOR
from common.platform.env import ConfigError
from common.platform.keys import FixedRing, Key
from common.platform.settings import Tokens
from infra.local.settings import local_data_dir
from infra.local.signing_key import NO_KEY_IN_MEMORY, local_jwt_secret

LOCAL_SUBJECT = "developer@localhost"
TOKEN_TTL_SECONDS = MAX_LIFETIME_SECONDS


def local_settings(env: Mapping[str, str] | None = None) -> Tokens:
    """The token settings of a tool that signs or verifies tokens for a running local stack
    (`make token`, `make seed`, `chalice local`): with the stack's key, found as the stack
    finds it. ConfigError where that key cannot be known (data in memory)."""
    env = os.environ if env is None else env
    key = local_jwt_secret(local_data_dir(env), env)
    if key is None:
        raise ConfigError(NO_KEY_IN_MEMORY)
    return Tokens.from_env({**env, "JWT_SECRET": key})


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
    tokens: Tokens,
    subject: str = LOCAL_SUBJECT,
    role: str = OPERATOR,
    user_id: int | None = None,
) -> str:
    if tokens.jwt_secret is None:
        raise ConfigError("JWT_SECRET: these settings hold no key (local_settings has the stack's)")
    return issue(subject, FixedRing(tokens.jwt_secret).signing(), role=role, user_id=user_id)
