"""The key the local stack's tokens are signed with, kept with its data (the tokens are
made outside the emulation, for make run and every other tool: infra/dev/tokens.py).

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
from collections.abc import Mapping
from pathlib import Path

from common.platform.env import MIN_JWT_SECRET_BYTES, ConfigError, Env

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
