"""The development setup's facts, each held to the one place it comes from: where the
`local` stage of .chalice/config.json points `chalice local`, and the local settings.
What the requirements files hold: test_locks.py."""

import json
from pathlib import Path

import pytest

from common.settings import ConfigError
from infra.local import LOCAL_AWS_ENV
from infra.local.settings import DEFAULT_PORTS, LocalSettings, PartitionLimits
from infra.local.settings import ROOT as STACK_ROOT

ROOT = Path(__file__).resolve().parents[2]


def test_the_local_stage_points_chalice_local_at_the_emulators_default_ports():
    config = json.loads((ROOT / ".chalice" / "config.json").read_text())
    env = config["stages"]["local"]["environment_variables"]
    url = "http://127.0.0.1:{}".format
    assert env["AWS_ENDPOINT_URL_DYNAMODB"] == url(DEFAULT_PORTS["DYNAMODB_PORT"])
    assert env["AWS_ENDPOINT_URL_LAMBDA"] == url(DEFAULT_PORTS["LAMBDA_PORT"])
    # The stock check goes to chalice local itself, on its default port, 8000.
    assert env["INVENTORY_SERVICE_URL"] == url(DEFAULT_PORTS["GATEWAY_PORT"]) == url(8000)
    # Dummy credentials: with real ones in the shell, nothing may reach real AWS.
    assert {k: env[k] for k in LOCAL_AWS_ENV} == LOCAL_AWS_ENV


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
    assert LocalSettings.from_env({"DYNAMODB_PARTITION_METER": "1"}).partitions == \
        PartitionLimits(None, None)
    # A rate counts as well as throttles; the burst defaults to a second of it.
    assert LocalSettings.from_env({"DYNAMODB_PARTITION_WRITE_RATE": "20"}).partitions == \
        PartitionLimits(20, None)
    assert LocalSettings.from_env({"DYNAMODB_PARTITION_WRITE_RATE": "20",
                                   "DYNAMODB_PARTITION_WRITE_BURST": "100"}).partitions == \
        PartitionLimits(20, 100)
    for env in [{"DYNAMODB_PARTITION_METER": "yes"}, {"DYNAMODB_PARTITION_WRITE_RATE": "0"},
                {"DYNAMODB_PARTITION_WRITE_RATE": "fast"},
                {"DYNAMODB_PARTITION_WRITE_BURST": "10"}]:
        with pytest.raises(ConfigError, match=f"^{list(env)[0]}="):
            LocalSettings.from_env(env)
