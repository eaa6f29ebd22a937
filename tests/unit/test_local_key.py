"""The local stack's signing key (infra/local/signing_key.py): JWT_SECRET if set, else a random
key kept in the data directory, found the same way by `make run`, `make token`, `make
seed` and `chalice local --stage local`. The stacks themselves: tests/e2e/test_local_key.py."""

import stat

import jwt
import pytest

from common.platform.env import ConfigError
from infra import tokens
from infra.chalice_local import local_environment
from infra.local.persistence import DataDir
from infra.local.signing_key import KEY_FILE, local_jwt_secret

GIVEN = "a-key-given-in-JWT_SECRET-of-40-bytes-xx"


def test_a_data_directory_gets_a_random_key_on_first_use_readable_by_its_owner_alone(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    key = local_jwt_secret(one, {})
    assert key is not None and len(key.encode()) >= 64
    assert stat.S_IMODE((one / KEY_FILE).stat().st_mode) == 0o600
    assert (one / KEY_FILE).read_text().strip() == key
    assert local_jwt_secret(one, {}) == key  # kept: the same after a restart
    assert local_jwt_secret(two, {}) not in (None, key)  # each data directory its own
    assert sorted(path.name for path in one.iterdir()) == [KEY_FILE]  # nothing left behind


def test_JWT_SECRET_overrides_the_kept_key_and_nothing_is_written(tmp_path):
    assert local_jwt_secret(tmp_path / "data", {"JWT_SECRET": GIVEN}) == GIVEN
    assert not (tmp_path / "data").exists()


def test_with_the_data_in_memory_there_is_no_kept_key():
    assert local_jwt_secret(None, {}) is None


def test_a_key_file_holding_no_usable_key_stops_the_start_naming_it(tmp_path):
    (tmp_path / KEY_FILE).write_text("short\n")
    with pytest.raises(ConfigError, match=KEY_FILE):
        local_jwt_secret(tmp_path, {})


def test_make_reset_empties_the_data_but_keeps_the_key(tmp_path):
    key = local_jwt_secret(tmp_path, {})
    (tmp_path / "dynamodb.json").write_text("{}")
    DataDir(tmp_path).reset()
    assert local_jwt_secret(tmp_path, {}) == key


def test_make_token_signs_with_the_key_of_LOCAL_DATA_DIR(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("JWT_SECRET", raising=False)
    monkeypatch.setenv("LOCAL_DATA_DIR", str(tmp_path))
    tokens.main([])
    token = capsys.readouterr().out.strip()
    key = (tmp_path / KEY_FILE).read_text().strip()
    assert jwt.decode(token, key, algorithms=["HS256"])["role"] == "operator"
    monkeypatch.setenv("JWT_SECRET", GIVEN)
    tokens.main([])
    jwt.decode(capsys.readouterr().out.strip(), GIVEN, algorithms=["HS256"])


def test_make_token_for_data_in_memory_needs_JWT_SECRET(monkeypatch, capsys):
    monkeypatch.delenv("JWT_SECRET", raising=False)
    monkeypatch.setenv("LOCAL_DATA_DIR", "")
    with pytest.raises(SystemExit) as stopped:
        tokens.main([])
    assert stopped.value.code == 2
    said = capsys.readouterr()
    assert said.out == "" and "LOCAL_DATA_DIR" in said.err and "JWT_SECRET" in said.err


def test_chalice_local_verifies_with_the_key_of_the_emulators_data(tmp_path):
    key = local_jwt_secret(tmp_path, {})
    assert local_environment({"LOCAL_DATA_DIR": str(tmp_path)}, 8000)["JWT_SECRET"] == key
    given = {"LOCAL_DATA_DIR": str(tmp_path), "JWT_SECRET": GIVEN}
    assert local_environment(given, 8000)["JWT_SECRET"] == GIVEN
    with pytest.raises(ConfigError, match="LOCAL_DATA_DIR"):
        local_environment({"LOCAL_DATA_DIR": ""}, 8000)
