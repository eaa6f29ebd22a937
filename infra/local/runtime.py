"""A function's execution environments, made as Lambda SnapStart makes them: one process
imports the function's handler once (its init) and is the snapshot; every environment is
a fork of it, in which the after-restore hooks run (AWS's snapshot-restore-py, which
the functions register theirs with) before it answers one invocation at a time.

`python -m infra.local.runtime <fd>` is the stack's one starter (the local Lambda
service, infra/local/lambdas.py, starts it): it loads the libraries every function's
layer holds (PRELOADED), once, then forks each function's snapshot process, given the
function's environment: its handler in _HANDLER, its code in LAMBDA_TASK_ROOT (a folder
holding its package only, as its artifact does) and its layers in _LAYERS. Only those are
importable of the repository's code, as on Lambda: a function that imports another's
code fails here as it would there. Each process is told what to do over a Unix socket of
its own: a snapshot tells when its init is done, and each message then asks it for an
environment, carrying the environment's connection and the pipe its output goes to; the
answer is the new process's pid. What a process prints is the function's log; the
service passes each line on.
"""

import contextlib
import ctypes
import gc
import importlib
import json
import os
import signal
import socket
import stat
import sys
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

from snapshot_restore_py import get_after_restore, get_before_snapshot

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


def _message(message: dict) -> bytes:
    return json.dumps(message, default=str).encode("utf-8")


def _reap(*_) -> None:
    """Every child that ended, waited for: so what it used (its CPU time) is counted to
    this process, and on up to whoever started the stack, as it was when each environment
    was the stack's own child."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _run_hooks(hooks: list) -> None:
    for function, args, kwargs in hooks:
        function(*args, **kwargs)


def _connections_dropped(keep: set[int]) -> None:
    """What a restore does to the connections the init opened: on AWS they are dead;
    here the fork would share each socket with its siblings. Each TCP socket becomes one
    its peer has closed, as a restored connection is found: a client's pool sees it
    dropped and opens another."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd in keep or not stat.S_ISSOCK(_mode(fd)):
            continue
        probe = socket.socket(fileno=os.dup(fd))
        family = probe.family
        probe.close()
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        dead, peer = socket.socketpair()
        peer.close()
        os.dup2(dead.fileno(), fd)
        dead.close()


def _mode(fd: int) -> int:
    try:
        return os.fstat(fd).st_mode
    except OSError:  # the listing's own descriptor, closed since
        return 0


def _serve(connection: Connection, handler: Callable) -> None:
    """One environment: its after-restore hooks, then invocations until the service
    closes its connection."""
    started = time.perf_counter()
    try:
        _run_hooks(get_after_restore())
    except BaseException as exc:
        error = _error(exc)
        _log_failure("restore", error)
        connection.send_bytes(_message({"init_error": error}))
        return
    connection.send_bytes(_message({"ready": round((time.perf_counter() - started) * 1000, 1)}))
    while True:
        try:
            invocation = json.loads(connection.recv_bytes())
        except EOFError:
            return  # the service stopped this environment
        context = Context(invocation["request_id"], invocation["deadline"])
        try:
            result = handler(json.loads(invocation["event"]), context)
            connection.send_bytes(_message({"result": json.dumps(result, default=str)}))
        except Exception as exc:
            _log_failure("invocation", _error(exc))
            connection.send_bytes(_message({"error": _error(exc)}))
        sys.stdout.flush()


def _restore(control: socket.socket, handler: Callable, fds: list[int]) -> None:
    """In a new child: the environment whose connection and output `fds` are."""
    connection_fd, output_fd = fds
    control.close()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    os.close(output_fd)
    _connections_dropped({connection_fd})
    try:
        _serve(Connection(connection_fd), handler)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        # Not the parent's exit handlers (a thread pool's join, say): this process
        # only ever answered invocations.
        os._exit(0)


def snapshot(fd: int) -> None:
    """A function's snapshot: its init, then an environment forked for each request."""
    control = socket.socket(fileno=fd)
    _only_the_functions_code()
    module, _, attribute = os.environ["_HANDLER"].rpartition(".")
    started = time.perf_counter()
    try:
        handler = getattr(importlib.import_module(module), attribute)
        _run_hooks(get_before_snapshot()[::-1])  # as Lambda: last registered first
    except BaseException as exc:  # a syntax error, a failed init: Lambda's Runtime.* error
        error = _error(exc)
        _log_failure("init", error)
        control.sendall(_message({"init_error": error}))
        return
    sys.stdout.flush()
    # What the init made is the forks' to share: in the permanent generation, the
    # collector never visits it, so a fork's collections do not write to (and so copy)
    # the pages it shares with its siblings.
    gc.freeze()
    # Its environments end when the service is done with them.
    signal.signal(signal.SIGCHLD, _reap)
    control.sendall(_message({"ready": round((time.perf_counter() - started) * 1000, 1)}))
    while True:
        request, fds, _, _ = socket.recv_fds(control, 1024, 2)
        if not request:
            return  # the service is done with this snapshot (its code changed, or a stop)
        sys.stdout.flush()  # else what is buffered is printed again by the child
        pid = os.fork()
        if pid == 0:
            _restore(control, handler, fds)
        for passed in fds:
            os.close(passed)
        control.sendall(_message({"pid": pid}))


# Third-party libraries of the common layer that read nothing of the environment when
# imported (the X-Ray SDK and Powertools do: they are left to each function's init).
PRELOADED = ("botocore.session", "boto3", "pynamodb.models", "chalice.app", "simplejson", "jwt")
_PR_SET_NAME = 15


def _named(name: str) -> None:
    """The process's name in ps and top (its first 15 bytes): the function it runs."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_NAME, name.encode()[:15], 0, 0, 0)


def _as_snapshot(starter: socket.socket, request: bytes, fds: list[int]) -> None:
    """In a new child of the starter: the snapshot of the function `request` names."""
    control_fd, output_fd = fds
    starter.close()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    os.close(output_fd)
    os.environ.clear()
    os.environ.update(json.loads(request)["environment"])
    _named(os.environ["AWS_LAMBDA_FUNCTION_NAME"])
    try:
        snapshot(control_fd)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def main(fd: int) -> None:
    """The starter: PRELOADED once, then a snapshot forked for each request."""
    starter = socket.socket(fileno=fd)
    for library in PRELOADED:
        importlib.import_module(library)
    gc.freeze()  # shared with every snapshot, as each snapshot's init is with its forks
    signal.signal(signal.SIGCHLD, _reap)
    starter.sendall(_message({"ready": True}))
    while True:
        request, fds, _, _ = socket.recv_fds(starter, 1 << 20, 2)
        if not request:
            return  # the stack is done
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            _as_snapshot(starter, request, fds)
        for passed in fds:
            os.close(passed)
        starter.sendall(_message({"pid": pid}))


if __name__ == "__main__":
    main(int(sys.argv[1]))
