"""X-Ray tracing through Powertools' Tracer, one per process.

Powertools' tracers share their configuration, so this module's is the process's. It
records each AWS call (botocore) as a subsegment of the invocation; the calls over HTTP
(urllib3, which the X-Ray SDK does not patch) show inside the subsegment of the method
that makes them (the stock check, the publish).

Tracing is on only on Lambda, and there unless POWERTOOLS_TRACE_DISABLED is true:
Powertools' own rule, asked before a Tracer is built, because building one imports the
X-Ray SDK and with it botocore even when it then turns itself off (about 90 ms of a cold
start, most of the notification function's). When off, `tracer` only calls through.
"""

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from aws_lambda_powertools.tracing.tracer import Tracer

F = TypeVar("F", bound=Callable[..., Any])


class _Off:
    """Tracer's decorators, calling straight through."""

    def capture_lambda_handler(self, handler: F | None = None, **_options: object) -> Any:
        return handler if handler is not None else (lambda function: function)

    def capture_method(self, method: F | None = None, **_options: object) -> Any:
        return method if method is not None else (lambda function: function)


def tracing_on(environ: Mapping[str, str] | None = None) -> bool:
    """Powertools' documented rule, read from the same variables before a Tracer is built:
    on in Lambda (LAMBDA_TASK_ROOT), but not under SAM's or Chalice's local emulation, and
    never when POWERTOOLS_TRACE_DISABLED is true."""
    environ = os.environ if environ is None else environ
    disabled = environ.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower()
    if disabled in ("1", "true", "yes", "on", "y", "t"):
        return False
    in_lambda = bool(environ.get("LAMBDA_TASK_ROOT"))
    emulated = bool(environ.get("AWS_SAM_LOCAL") or environ.get("AWS_CHALICE_CLI_MODE"))
    return in_lambda and not emulated


tracer = Tracer(patch_modules=("botocore",)) if tracing_on() else _Off()


@contextmanager
def untraced() -> Iterator[None]:
    """Record nothing while inside: for the work a function does during Lambda's init.

    Lambda runs init without a trace (its trace header is set per invocation), so the
    X-Ray SDK would drop every subsegment begun then, writing a warning line for each
    AWS call; its own switch turned off, it hands out dummies and writes nothing.
    The switch is the process's, so this is for init only, never around a request. An
    AWS_XRAY_SDK_ENABLED in the environment overrides it (the SDK's rule): set to true,
    the warnings are back.
    """
    if isinstance(tracer, _Off):
        yield
        return
    from aws_xray_sdk import global_sdk_config  # loaded with the Tracer

    was_enabled = global_sdk_config.sdk_enabled()
    global_sdk_config.set_sdk_enabled(False)
    try:
        yield
    finally:
        global_sdk_config.set_sdk_enabled(was_enabled)
