"""When tracing is on, and that being off costs nothing (the X-Ray SDK not even loaded)."""

import os
import subprocess
import sys

import pytest

PROBE = """
import sys
from common.platform.tracing import tracer

@tracer.capture_method(capture_response=False)
def checked(n):
    return n + 1

print(type(tracer).__name__, "aws_xray_sdk" in sys.modules, checked(1))
"""


def probed(probe: str, leave_out: tuple[str, ...], **env) -> subprocess.CompletedProcess:
    """`probe` run by a Python of its own, in this environment without `leave_out` and
    with `env`; it must succeed."""
    kept = {name: value for name, value in os.environ.items() if name not in leave_out}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        env={**kept, **env},
    )
    assert result.returncode == 0, result.stderr
    return result


def traced(**env) -> str:
    leave_out = ("LAMBDA_TASK_ROOT", "POWERTOOLS_TRACE_DISABLED", "AWS_SAM_LOCAL")
    return probed(PROBE, (*leave_out, "AWS_CHALICE_CLI_MODE"), **env).stdout.strip()


@pytest.mark.parametrize(
    "env, expected",
    [
        ({}, "_Off False 2"),  # the local stack, the tests
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "true"}, "_Off False 2"),
        ({"LAMBDA_TASK_ROOT": "/var/task"}, "Tracer True 2"),
        ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "1"}, "_Off False 2"),
        ({"LAMBDA_TASK_ROOT": "/var/task", "AWS_SAM_LOCAL": "true"}, "_Off False 2"),
        ({"LAMBDA_TASK_ROOT": "/var/task", "AWS_CHALICE_CLI_MODE": "true"}, "_Off False 2"),
    ],
)
def test_tracing_is_on_on_lambda_only_and_off_loads_nothing(env, expected):
    assert traced(**env) == expected


WARM_UP_PROBE = """
import logging, os
from aws_xray_sdk import global_sdk_config
from common.platform.lambda_init import warm_up
from common.platform.tracing import tracer

@tracer.capture_method(capture_response=False)
def rehearsal():
    return 1

warm_up(rehearsal, logging.getLogger("init"))  # Lambda's init: no trace header yet
os.environ["_X_AMZN_TRACE_ID"] = ("Root=1-5f84c7a9-4a5b6c7d8e9f0a1b2c3d4e5f;"
                                  "Parent=53995c3f42cd8ad8;Sampled=1")
print(global_sdk_config.sdk_enabled(), rehearsal())
"""


def test_the_warm_up_records_nothing_and_tracing_resumes_for_the_invocations():
    """Lambda runs init without a trace header: the X-Ray SDK would drop each subsegment
    begun then with a warning line, on every cold start."""
    result = probed(
        WARM_UP_PROBE,
        ("POWERTOOLS_TRACE_DISABLED", "_X_AMZN_TRACE_ID"),
        LAMBDA_TASK_ROOT="/var/task",
        AWS_XRAY_DAEMON_ADDRESS="127.0.0.1:9",
    )
    assert (result.stdout.strip(), result.stderr) == ("True 1", "")
