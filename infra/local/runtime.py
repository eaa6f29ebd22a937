"""One execution environment of a function, as Lambda runs it: a process that imports the
function's handler once (its init) and then answers one invocation at a time, told each
by the local Lambda service (infra/local/lambdas.py) over a connection of its own.

Started as `python -m infra.local.runtime <fd>` with the function's environment: its
handler in _HANDLER, its code in LAMBDA_TASK_ROOT (a folder holding its package only, as
its artifact does) and its layers in _LAYERS. Only those are importable, as on Lambda:
a function that imports another's code fails here as it would there. What it prints is
its log; the service passes each line on.
"""

import importlib
import json
import os
import sys
import time
import traceback
from multiprocessing.connection import Connection
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]


class Context:
    """What a handler reads of Lambda's context object, for one invocation."""

    def __init__(self, request_id: str, deadline: float):
        self.function_name = os.environ["AWS_LAMBDA_FUNCTION_NAME"]
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = int(os.environ["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"])
        self.invoked_function_arn = (
            f"arn:aws:lambda:{os.environ['AWS_REGION']}:000000000000:function:{self.function_name}"
        )
        self.aws_request_id = request_id
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self.log_stream_name = "local"
        self._deadline = deadline

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.time()) * 1000))


def _error(exc: BaseException) -> dict:
    """An error as Lambda reports one (errorType, errorMessage, stackTrace)."""
    return {
        "errorType": type(exc).__name__,
        "errorMessage": str(exc),
        "stackTrace": traceback.format_exception(exc),
    }


def _only_the_functions_code() -> None:
    """The repository's own folders leave the path (the development install puts them
    there); the function's code and its layers take their place."""
    ours = {str(REPOSITORY), str(REPOSITORY / "functions"), str(REPOSITORY / "layers" / "common")}
    sys.path[:] = [entry for entry in sys.path if entry not in ours and entry != ""]
    layers = [layer for layer in os.environ.get("_LAYERS", "").split(os.pathsep) if layer]
    sys.path[:0] = [os.environ["LAMBDA_TASK_ROOT"], *layers]


def _log_failure(stage: str, error: dict) -> None:
    """What Lambda's runtime writes to the function's log when its init or an invocation
    fails: the error and its traceback (one JSON line here)."""
    print(json.dumps({"level": "ERROR", "message": f"{stage} failed", **error}), flush=True)


def _send(connection: Connection, message: dict) -> None:
    connection.send_bytes(json.dumps(message, default=str).encode("utf-8"))


def main(fd: int) -> None:
    connection = Connection(fd)
    _only_the_functions_code()
    module, _, attribute = os.environ["_HANDLER"].rpartition(".")
    started = time.perf_counter()
    try:
        handler = getattr(importlib.import_module(module), attribute)
    except BaseException as exc:  # a syntax error, a failed init: Lambda's Runtime.* error
        _log_failure("init", _error(exc))
        _send(connection, {"init_error": _error(exc)})
        return
    _send(connection, {"ready": round((time.perf_counter() - started) * 1000, 1)})
    while True:
        try:
            invocation = json.loads(connection.recv_bytes())
        except EOFError:
            return  # the service stopped this environment
        context = Context(invocation["request_id"], invocation["deadline"])
        try:
            result = handler(json.loads(invocation["event"]), context)
            _send(connection, {"result": json.dumps(result, default=str)})
        except Exception as exc:
            _log_failure("invocation", _error(exc))
            _send(connection, {"error": _error(exc)})
        sys.stdout.flush()


if __name__ == "__main__":
    main(int(sys.argv[1]))
