"""When tracing is on, and that being off costs nothing (the X-Ray SDK not even loaded)."""

import os
import subprocess
import sys

import pytest

PROBE = """
import sys
from common.tracing import tracer

@tracer.capture_method(capture_response=False)
def checked(n):
    return n + 1

print(type(tracer).__name__, "aws_xray_sdk" in sys.modules, checked(1))
"""


def traced(**env) -> str:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("LAMBDA_TASK_ROOT", "POWERTOOLS_TRACE_DISABLED")}
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                            timeout=60, env={**clean, **env})
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize("env, expected", [
    ({}, "_Off False 2"),  # the local stack, the tests
    ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "true"}, "_Off False 2"),
    ({"LAMBDA_TASK_ROOT": "/var/task"}, "Tracer True 2"),
])
def test_tracing_is_on_on_lambda_only_and_off_loads_nothing(env, expected):
    assert traced(**env) == expected
