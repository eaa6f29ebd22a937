"""The development setup's facts, each held to the one place it comes from: where
`chalice local --stage local` finds the emulators (the ports `make emulators` reads, and
prints a command for). What the requirements files hold: test_locks.py."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from common.platform.env import ConfigError
from infra.chalice_local import local_environment
from infra.dev.banner import chalice_local_command
from infra.local import LOCAL_AWS_ENV
from infra.local.settings import DEFAULT_PORTS, LocalSettings, PartitionLimits
from infra.local.settings import ROOT as STACK_ROOT

ROOT = Path(__file__).resolve().parents[2]


def test_the_local_stage_holds_dummy_credentials_and_no_port():
    config = json.loads((ROOT / ".chalice" / "config.json").read_text())
    env = config["stages"]["local"]["environment_variables"]
    # Dummy credentials: with real ones in the shell, nothing may reach real AWS.
    assert env == LOCAL_AWS_ENV
    # Ports come from the variables `make emulators` reads, never from a tracked file.
    assert not re.search(r":\d{2,5}\b", (ROOT / ".chalice" / "config.json").read_text())


def test_chalice_local_finds_the_emulators_on_their_ports_and_itself_on_its_own():
    url = "http://127.0.0.1:{}".format
    key = {"JWT_SECRET": "the-emulators-key-" + "k" * 20}  # which key: test_local_key.py
    default = local_environment(key, 8000)
    assert default == {
        **key,
        "AWS_ENDPOINT_URL_DYNAMODB": url(DEFAULT_PORTS["DYNAMODB_PORT"]),
        "AWS_ENDPOINT_URL_SQS": url(DEFAULT_PORTS["DYNAMODB_PORT"]),
        "AWS_ENDPOINT_URL_KMS": url(DEFAULT_PORTS["DYNAMODB_PORT"]),
        "AWS_ENDPOINT_URL_LAMBDA": url(DEFAULT_PORTS["LAMBDA_PORT"]),
        "WEBHOOK_LOCAL_TARGETS": "true",
        "INVENTORY_SERVICE_URL": url(8000),
        "ORDERS_SERVICE_URL": url(8000),
    }
    moved = local_environment(
        {**key, "DYNAMODB_PORT": "19002", "LAMBDA_PORT": "19003", "GATEWAY_PORT": "19000"}, 19500
    )
    assert moved == {
        **key,
        "AWS_ENDPOINT_URL_DYNAMODB": url(19002),
        "AWS_ENDPOINT_URL_SQS": url(19002),
        "AWS_ENDPOINT_URL_KMS": url(19002),
        "AWS_ENDPOINT_URL_LAMBDA": url(19003),
        "WEBHOOK_LOCAL_TARGETS": "true",
        "INVENTORY_SERVICE_URL": url(19500),
        "ORDERS_SERVICE_URL": url(19500),
    }
    with pytest.raises(ConfigError, match="^LAMBDA_PORT="):
        local_environment({"LAMBDA_PORT": "x"}, 8000)


def test_make_emulators_prints_the_chalice_local_command_for_its_ports():
    defaults = (
        DEFAULT_PORTS["GATEWAY_PORT"],
        DEFAULT_PORTS["DYNAMODB_PORT"],
        DEFAULT_PORTS["LAMBDA_PORT"],
    )
    assert chalice_local_command(*defaults) == ".venv/bin/chalice local --stage local"
    assert chalice_local_command(19000, 19002, 19003) == (
        "DYNAMODB_PORT=19002 LAMBDA_PORT=19003 .venv/bin/chalice local --stage local --port 19000"
    )
    assert (
        chalice_local_command(19000, *defaults[1:])
        == ".venv/bin/chalice local --stage local --port 19000"
    )


def test_local_settings_read_the_data_dir_reload_and_ports():
    default = LocalSettings.from_env({})
    assert default.data_dir == STACK_ROOT / ".local-data" and default.reload
    assert LocalSettings.from_env({"LOCAL_DATA_DIR": ""}).data_dir is None
    assert LocalSettings.from_env({"LOCAL_DATA_DIR": "/srv/d"}).data_dir == Path("/srv/d")
    assert LocalSettings.from_env({"LOCAL_DATA_DIR": "mine"}).data_dir == STACK_ROOT / "mine"
    assert not LocalSettings.from_env({"RELOAD": "0"}).reload
    for name, value in [("RELOAD", "yes"), ("DYNAMODB_PORT", "70000"), ("LAMBDA_PORT", "-1")]:
        with pytest.raises(ConfigError, match=f"^{name}="):
            LocalSettings.from_env({name: value})


def test_the_emulator_counts_and_throttles_partition_writes_only_when_asked():
    assert LocalSettings.from_env({}).partitions is None
    assert LocalSettings.from_env({"DYNAMODB_PARTITION_METER": "1"}).partitions == PartitionLimits(
        None, None
    )
    # A rate counts as well as throttles; the burst defaults to a second of it.
    assert LocalSettings.from_env(
        {"DYNAMODB_PARTITION_WRITE_RATE": "20"}
    ).partitions == PartitionLimits(20, None)
    assert LocalSettings.from_env(
        {"DYNAMODB_PARTITION_WRITE_RATE": "20", "DYNAMODB_PARTITION_WRITE_BURST": "100"}
    ).partitions == PartitionLimits(20, 100)
    for env in [
        {"DYNAMODB_PARTITION_METER": "yes"},
        {"DYNAMODB_PARTITION_WRITE_RATE": "0"},
        {"DYNAMODB_PARTITION_WRITE_RATE": "fast"},
        {"DYNAMODB_PARTITION_WRITE_BURST": "10"},
    ]:
        with pytest.raises(ConfigError, match=f"^{list(env)[0]}="):
            LocalSettings.from_env(env)


def test_make_runs_emulator_does_not_load_the_partition_meter():
    """The meter (infra/local/partition_writes.py) is loaded only when asked for: not by
    `make run`'s stack, nor by its emulator's process building an emulator without
    DYNAMODB_PARTITION_* set. Run apart: this process may have loaded it already."""
    probe = (
        "import sys\n"
        "import infra.local.aws_process, infra.local.stack\n"
        "from infra.local.emulator import emulator\n"
        "from infra.local.settings import partition_limits\n"
        "assert partition_limits() is None\n"
        "emulator(partitions=None).start().stop()\n"
        "print(sorted(name for name in sys.modules if 'partition' in name))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DYNAMODB_PARTITION_")}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout
