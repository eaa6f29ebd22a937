"""How the tools beside the local stack find it (infra/local/running.py): by the data
directory it runs on, whatever ports it chose."""

import os

import pytest

from infra.local.running import RUNNING_FILE, RunningStack, announce, running, url_of, withdraw

STACK = RunningStack(
    pid=os.getpid(),
    dynamodb_url="http://127.0.0.1:41001",
    lambda_url="http://127.0.0.1:41002",
    notification_url="http://127.0.0.1:41003",
    gateway_url="http://127.0.0.1:41004",
    key_id="k-0123456789ab",
)


def test_a_running_stack_is_found_by_its_data_directory_whatever_its_ports(tmp_path):
    env = {"LOCAL_DATA_DIR": str(tmp_path), "DYNAMODB_PORT": "0"}
    announce(tmp_path, STACK)
    assert running(env) == STACK
    assert url_of("make user", "DYNAMODB_PORT", env) == "http://127.0.0.1:41001"
    assert url_of("make seed", "GATEWAY_PORT", env) == "http://127.0.0.1:41004"
    # A port given to the tool is taken as given.
    assert url_of("make user", "DYNAMODB_PORT", {**env, "DYNAMODB_PORT": "8102"}) == (
        "http://127.0.0.1:8102"
    )
    withdraw(tmp_path)
    assert not (tmp_path / RUNNING_FILE).exists() and running(env) is None


def test_a_file_left_by_a_stack_that_died_is_ignored(tmp_path):
    env = {"LOCAL_DATA_DIR": str(tmp_path)}
    gone = RunningStack(**{**STACK.__dict__, "pid": 2**22 + 12345})  # no such process
    announce(tmp_path, gone)
    assert running(env) is None
    assert url_of("make user", "DYNAMODB_PORT", env) == "http://127.0.0.1:8002"  # the default
    with pytest.raises(SystemExit, match="DYNAMODB_PORT=0, and no local stack runs on"):
        url_of("make user", "DYNAMODB_PORT", {**env, "DYNAMODB_PORT": "0"})


def test_data_in_memory_is_no_directory_to_look_in():
    assert running({"LOCAL_DATA_DIR": ""}) is None
