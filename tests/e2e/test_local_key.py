"""The key of `make run` without JWT_SECRET: a random one of its own, kept in LOCAL_DATA_DIR
with the data (so its tokens outlive a restart), the one `make token` signs with, and never
printed. The key the original system published signs nothing here."""

import os
import stat
import subprocess

import jwt
import requests

from infra.local.signing_key import KEY_FILE
from tests.support.stack_process import ROOT, StackProcess
from tests.support.tokens import make_token

# The original system's development key, in its public repository: anyone can sign with it.
PUBLISHED_KEY = b"mySecureSecretKey1234567890ABCDE"
NO_KEY = {"JWT_SECRET": ""}  # as in a terminal that never set it


def status(stack: StackProcess, token: str) -> int:
    return requests.get(
        f"{stack.gateway}/api/inventario",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    ).status_code


def make_token_for(data_dir) -> str:
    """`make -s token` in a terminal with LOCAL_DATA_DIR set and no JWT_SECRET."""
    env = {k: v for k, v in os.environ.items() if k != "JWT_SECRET"}
    result = subprocess.run(
        ["make", "-s", "token"],
        cwd=ROOT,
        env={**env, "LOCAL_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return result.stdout.strip()


def test_a_stack_without_JWT_SECRET_keeps_a_random_key_with_its_data_and_prints_none(tmp_path):
    data = tmp_path / "data"
    first = StackProcess({**NO_KEY, "LOCAL_DATA_DIR": str(data)}).start()
    try:
        key_file = data / KEY_FILE
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        key = key_file.read_text().strip()
        assert status(first, make_token(secret=PUBLISHED_KEY)) == 401
        assert status(first, first.token) == 200
        jwt.decode(first.token, key, algorithms=["HS256"])  # the printed token: that key's
        made = make_token_for(data)
        jwt.decode(made, key, algorithms=["HS256"])
        assert status(first, made) == 200
    finally:
        first.stop()
    again = StackProcess({**NO_KEY, "LOCAL_DATA_DIR": str(data)}).start()
    try:
        assert key_file.read_text().strip() == key
        assert status(again, first.token) == 200 and status(again, made) == 200
        assert status(again, make_token(secret=PUBLISHED_KEY)) == 401
    finally:
        again.stop()
    assert key not in first.output() and key not in again.output()


def test_each_data_directory_and_each_stack_in_memory_has_its_own_key_and_JWT_SECRET_wins(
    tmp_path,
):
    one, two = make_token_for(tmp_path / "one"), make_token_for(tmp_path / "two")
    keys = [(tmp_path / name / KEY_FILE).read_text().strip() for name in ("one", "two")]
    assert keys[0] != keys[1]
    jwt.decode(one, keys[0], algorithms=["HS256"])
    jwt.decode(two, keys[1], algorithms=["HS256"])

    given = "a-key-given-in-JWT_SECRET-" + "x" * 24
    in_memory = StackProcess({**NO_KEY, "LOCAL_DATA_DIR": ""}).start()
    told = StackProcess({"JWT_SECRET": given, "LOCAL_DATA_DIR": str(tmp_path / "one")})
    try:
        told.start()
        assert status(in_memory, in_memory.token) == 200
        assert status(in_memory, make_token(secret=PUBLISHED_KEY)) == 401
        assert status(in_memory, one) == 401  # a data directory's key is not its
        assert status(told, make_token(secret=given.encode())) == 200
        jwt.decode(told.token, given, algorithms=["HS256"])
        assert status(told, one) == 401  # JWT_SECRET, not the key kept in its directory
        # So `make token` on that directory, told no JWT_SECRET, says so rather than print
        # a token the running stack refuses (infra/local/running.py).
        env = {k: v for k, v in os.environ.items() if k != "JWT_SECRET"}
        refused = subprocess.run(
            ["make", "-s", "token"],
            cwd=ROOT,
            env={**env, "LOCAL_DATA_DIR": str(tmp_path / "one")},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert refused.returncode != 0 and refused.stdout == ""
        assert "signs with another key" in refused.stderr
        assert status(told, in_memory.token) == 401
        assert status(in_memory, told.token) == 401
    finally:
        in_memory.stop()
        told.stop()
    assert given not in told.output()
