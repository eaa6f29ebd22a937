"""What only the local stack reads (`make run`, `make emulators`): ports, data, reload.

The fixed ports are the defaults a developer types URLs against, and the ones the `local`
stage of .chalice/config.json points `chalice local` at (a test holds the two together);
tests set every port to 0, so parallel runs never collide.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from common.platform.env import Env

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PORTS = {
    "GATEWAY_PORT": 8000,
    "NOTIFICATION_PORT": 8001,
    "DYNAMODB_PORT": 8002,
    "LAMBDA_PORT": 8003,
}
DEFAULT_DATA_DIR = ".local-data"
DEFAULT_IDLE_TIMEOUT_SECONDS = 30
# A schedule runs at least this often locally (the sweep's five minutes would be long to
# wait for while watching an event come back); tests run them sooner.
DEFAULT_SCHEDULE_SECONDS = 60.0
# Throttling, as the template's stages do it: {variable: template parameter}; the defaults
# are the parameters' own (tests/release holds the two together).
THROTTLE_PARAMETERS = {
    "THROTTLE_RATE_LIMIT": "GatewayThrottleRateLimit",
    "THROTTLE_BURST_LIMIT": "GatewayThrottleBurstLimit",
    "NOTIFICATION_THROTTLE_RATE_LIMIT": "NotificationThrottleRateLimit",
    "NOTIFICATION_THROTTLE_BURST_LIMIT": "NotificationThrottleBurstLimit",
}


@dataclass(frozen=True)
class Throttle:
    rate: float  # requests a second, on average
    burst: int  # requests at once


def template_throttle(prefix: str) -> Throttle:
    """The throttle the template's parameters give a stage by default: the gateway's
    (prefix "") or the notification service's ("NOTIFICATION_")."""
    from infra import template  # the template is read only when a stack needs it

    defaults = template.load()["Parameters"]
    rate, burst = (f"{prefix}THROTTLE_RATE_LIMIT", f"{prefix}THROTTLE_BURST_LIMIT")
    return Throttle(
        float(defaults[THROTTLE_PARAMETERS[rate]]["Default"]),
        int(defaults[THROTTLE_PARAMETERS[burst]]["Default"]),
    )


# Where the emulator answers its count of writes per partition key (GET, `?top=N`) and
# zeroes it (DELETE), when it keeps one (PartitionLimits).
PARTITION_WRITES_PATH = "/_local/partition-writes"


@dataclass(frozen=True)
class PartitionLimits:
    """What the emulator does with the writes of each partition key
    (infra/local/partition_writes.py): count them, and throttle above `rate` a second
    (None: never), with a bucket of `burst` writes (None: one second of `rate`)."""

    rate: float | None = None
    burst: float | None = None


def partition_limits(env: Mapping[str, str] | None = None) -> PartitionLimits | None:
    """DYNAMODB_PARTITION_METER=1 counts writes per partition key;
    DYNAMODB_PARTITION_WRITE_RATE (writes a second, per key) also throttles, with
    DYNAMODB_PARTITION_WRITE_BURST writes at once. None: neither (the default)."""
    env = os.environ if env is None else env
    read = Env(env)
    meter = read.text("DYNAMODB_PARTITION_METER", "0")
    if meter not in ("0", "1"):
        read.fail("DYNAMODB_PARTITION_METER", "1 (count writes per partition key) or 0")
    rate = read.number("DYNAMODB_PARTITION_WRITE_RATE", None, minimum=0.001)
    burst = read.number("DYNAMODB_PARTITION_WRITE_BURST", None, minimum=1)
    if burst is not None and rate is None:
        read.fail(
            "DYNAMODB_PARTITION_WRITE_BURST", "unset unless DYNAMODB_PARTITION_WRITE_RATE is set"
        )
    if meter == "0" and rate is None:
        return None
    return PartitionLimits(rate, burst)


def local_data_dir(env: Mapping[str, str] | None = None) -> Path | None:
    """LOCAL_DATA_DIR, relative to the checkout; None when set empty (data in memory only).
    Read here alone, so every tool finds the stack's data (and key) where it keeps them."""
    env = os.environ if env is None else env
    # Set but empty means "in memory only", so Env.text (empty = unset) cannot read it.
    raw = env.get("LOCAL_DATA_DIR", DEFAULT_DATA_DIR).strip()
    return ROOT / raw if raw else None


@dataclass(frozen=True)
class LocalSettings:
    gateway_port: int = DEFAULT_PORTS["GATEWAY_PORT"]
    notification_port: int = DEFAULT_PORTS["NOTIFICATION_PORT"]
    dynamodb_port: int = DEFAULT_PORTS["DYNAMODB_PORT"]
    lambda_port: int = DEFAULT_PORTS["LAMBDA_PORT"]
    idle_timeout_seconds: int = DEFAULT_IDLE_TIMEOUT_SECONDS
    # None: the tables live in memory only and are gone when the stack stops.
    data_dir: Path | None = ROOT / DEFAULT_DATA_DIR
    reload: bool = True
    gateway_throttle: Throttle = field(default_factory=lambda: template_throttle(""))
    notification_throttle: Throttle = field(
        default_factory=lambda: template_throttle("NOTIFICATION_")
    )
    partitions: PartitionLimits | None = None  # None: writes per key neither counted nor limited
    # The most execution environments any one function may have at once; None: its
    # reserved concurrency, or infra/local/functions.py's default.
    max_environments: int | None = None
    schedule_seconds: float = DEFAULT_SCHEDULE_SECONDS

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "LocalSettings":
        env = os.environ if env is None else env
        read = Env(env)

        def port(name: str) -> int:
            value = read.integer(name, DEFAULT_PORTS[name], minimum=0)
            if value > 65535:
                read.fail(name, "a TCP port, 0-65535 (0 picks a free one)")
            return value

        reload = read.text("RELOAD", "1")
        if reload not in ("0", "1"):
            read.fail("RELOAD", "1 (reload the apps when their code changes) or 0")

        def throttle(prefix: str) -> Throttle:
            default = template_throttle(prefix)
            return Throttle(
                read.number(f"{prefix}THROTTLE_RATE_LIMIT", default.rate, minimum=0.001),
                read.integer(f"{prefix}THROTTLE_BURST_LIMIT", default.burst, minimum=1),
            )

        return cls(
            port("GATEWAY_PORT"),
            port("NOTIFICATION_PORT"),
            port("DYNAMODB_PORT"),
            port("LAMBDA_PORT"),
            read.integer("HTTP_IDLE_TIMEOUT_SECONDS", DEFAULT_IDLE_TIMEOUT_SECONDS, minimum=1),
            local_data_dir(env),
            reload == "1",
            throttle(""),
            throttle("NOTIFICATION_"),
            partition_limits(env),
            read.integer("LAMBDA_MAX_ENVIRONMENTS", None, minimum=1),
            read.number("LOCAL_SCHEDULE_SECONDS", DEFAULT_SCHEDULE_SECONDS, minimum=0.1),
        )
