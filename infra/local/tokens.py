"""Bearer tokens for the local stack, valid 24 hours (`make token` prints one: infra/tokens.py),
and the key it signs them with.

The key: JWT_SECRET when set; else a random one kept in the data directory
(LOCAL_DATA_DIR/KEY_FILE, readable by its owner alone), made on first use by whichever
comes first of `make run`, `make emulators`, `make token`, `make seed` and `chalice local
--stage local`, all of which find it there. It stays with the data across restarts (`make
reset` too), so a token outlives them; delete the file for a new key. A stack with its data
in memory (LOCAL_DATA_DIR empty) makes a key of its own at each start, which no other
process knows: use the token it prints, or give both the same JWT_SECRET. No key is built
in: the original system's was published, so anyone could have signed an operator's token.
"""

import contextlib
import os
import secrets
import time
from collections.abc import Mapping
from pathlib import Path

import jwt

from authorizer.claims import MAX_LIFETIME_SECONDS
from authorizer.shared_key import ALGORITHM
from common.identity.callers import CUSTOMER, OPERATOR
from common.platform.env import MIN_JWT_SECRET_BYTES, ConfigError, Env
from common.platform.keys import FixedRing, Key
from common.platform.settings import Tokens
from infra.local.settings import local_data_dir

LOCAL_SUBJECT = "developer@localhost"
TOKEN_TTL_SECONDS = MAX_LIFETIME_SECONDS
# In the data directory; named like the deployed stack's secret (<stack>/jwt-signing-key).
KEY_FILE = "jwt-signing-key"
KEY_BYTES = 48  # of randomness: 64 characters, twice the least JWT_SECRET may hold
NO_KEY_IN_MEMORY = (
    "JWT_SECRET: unset, and LOCAL_DATA_DIR is empty: a stack with its data in memory keeps "
    "its key there too. Use the token it printed, or start it and this with the same "
    "JWT_SECRET (at least 32 bytes)"
)


def new_key() -> str:
    return secrets.token_urlsafe(KEY_BYTES)


def local_jwt_secret(data_dir: Path | None, env: Mapping[str, str] | None = None) -> str | None:
    """The local stack's key (see the module's text): JWT_SECRET, else the one kept in
    `data_dir`, made if there is none yet; None for data in memory (`data_dir` None)."""
    env = os.environ if env is None else env
    given = Env(env).text("JWT_SECRET")
    if given is not None or data_dir is None:
        return given
    path = data_dir / KEY_FILE
    try:
        if not path.exists():
            create_once(path, new_key() + "\n")
        key = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"LOCAL_DATA_DIR: cannot keep the key in {path} ({exc})") from None
    if len(key.encode("utf-8")) < MIN_JWT_SECRET_BYTES:
        raise ConfigError(
            f"{path} holds no key of at least {MIN_JWT_SECRET_BYTES} bytes: delete it, "
            "and a new one is made"
        )
    return key


def create_once(path: Path, text: str) -> None:
    """`text` (a key) in a new file at `path`, readable by its owner alone; written aside
    and linked into place, so another process never reads half of it, and the first of
    two made at once is the one kept. An existing file is left as it is."""
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(f".{path.name}.{os.getpid()}")
    aside.unlink(missing_ok=True)
    with open(os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    try:
        with contextlib.suppress(FileExistsError):  # another process made it first
            os.link(aside, path)
    finally:
        aside.unlink()


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
