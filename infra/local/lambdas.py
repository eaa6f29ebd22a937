"""Lambda on a laptop: each function of the template runs in execution environments of its
own (worker processes, infra/local/runtime.py), each answering one invocation at a time,
as Lambda runs them.

- A function has a pool of environments, started on demand up to its concurrency (its
  reserved concurrency, or a small default), kept warm while used and stopped after
  IDLE_SECONDS without an invocation. An invocation that finds none free starts one and
  takes whichever is free first, that one or a busy one finishing meanwhile: locally an
  init shares the machine's cores with everything else; one freed is the oldest waiting
  invocation's, never a newcomer's, who would starve it (Pool._acquire).
- Another function's synchronous calls (the Invoke API: the stock check, a shipment's
  owner lookup) take a free environment of the function's if there is one, else one of
  environments of their own, CALL_ENVIRONMENTS at most, for a function that scales (no
  reserved concurrency): on AWS it would start another environment rather than queue a
  call behind busy ones (say, long lists); locally the cap only keeps a laptop's memory
  in check.
- An invocation that runs past the function's timeout, or whose environment dies, fails
  (as Lambda reports it), and that environment is replaced. A function whose code does not
  import fails its invocations at once: its init error, never a hang.
- An asynchronous invocation (InvocationType Event) is queued and answered at once; a
  failed one is tried again `retries` times, after ASYNC_RETRY_SECONDS then twice that,
  then sent to the function's on-failure destination (a queue in the emulator), as the
  template's EventInvokeConfig says. One the service itself cannot carry on (that queue
  unreachable while the emulator restarts) is kept and tried again: never dropped.
- When a function's code changes, its environments are replaced (`recycle`): the next
  invocation starts one with the new code; one under way finishes on the old.
"""

import contextlib
import functools
import json
import os
import queue
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO
from urllib.parse import unquote

from common.platform.logs import get_logger
from infra.local.functions import FunctionSpec
from infra.local.servers import BackgroundServer

IDLE_SECONDS = 600
# Lambda's limit on an init. Lambda runs one that overruns it again inside the first
# invocation, under the function's timeout: locally it is waited for that long, and
# logged (on a loaded laptop an init of 2 s can take more than 10).
INIT_TIMEOUT_SECONDS = 10
# The starter loads the libraries before any function's init: no Lambda limit applies, and
# on a loaded laptop (several stacks starting at once) it can take seconds.
STARTER_TIMEOUT_SECONDS = 60
CALL_ENVIRONMENTS = 2  # a function's environments for other functions' calls
THROTTLED = "TooManyRequestsException"  # Lambda's error: no environment for the call
ASYNC_RETRY_SECONDS = 1.0
# The longest an asynchronous invocation the service could not carry on waits before it
# is tried again (its on-failure destination unreachable while the emulator restarts).
KEPT_RETRY_MAX_SECONDS = 30.0

Log = Callable[[str, str], None]  # (function, line it printed)
_logger = get_logger("local-lambda")


@dataclass(frozen=True)
class Outcome:
    """How an invocation ended: `result` (its JSON) or `error` (Lambda's error object);
    `timed_out` when it ran out of time."""

    result: str | None = None
    error: dict | None = None
    timed_out: bool = False

    @property
    def failed(self) -> bool:
        return self.error is not None


def _failure(kind: str, message: str) -> Outcome:
    return Outcome(error={"errorType": kind, "errorMessage": message})


class InitFailed(Exception):
    def __init__(self, error: dict):
        super().__init__(error.get("errorMessage", "init failed"))
        self.error = error


@dataclass
class _Start:
    """An environment being started for an invocation: handed to it when ready, unless
    it took another meanwhile (then the new one joins the free ones)."""

    waited_for: bool = True
    environment: "Environment | None" = None
    error: dict | None = None


def _pass_on(function: str, stream, log: Log) -> None:
    """Each line a process prints, to the log, as the function's."""
    for raw in stream:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        if line:
            log(function, line)


def _ready(message: bytes | None, timeout: float) -> float:
    """The milliseconds an init (or a restore) took, from what its process said once it
    was done (None: nothing within `timeout` seconds); InitFailed when it failed, took
    longer, or its process ended."""
    if message is None:
        raise InitFailed(
            {"errorType": "Runtime.InitTimeout", "errorMessage": f"init took more than {timeout} s"}
        )
    if not message:
        raise InitFailed(
            {"errorType": "Runtime.ExitError", "errorMessage": "the environment exited during init"}
        )
    said = json.loads(message)
    if "init_error" in said:
        raise InitFailed(said["init_error"])
    if said["ready"] > INIT_TIMEOUT_SECONDS * 1000:
        _logger.warning("init past Lambda's limit", extra={"init_ms": said["ready"]})
    return said["ready"]


def _said(connection: Connection, timeout: float) -> bytes | None:
    """The next message on `connection` (b"" once it is closed), None after `timeout`."""
    if not connection.poll(timeout):
        return None
    try:
        return connection.recv_bytes()
    except (EOFError, OSError):
        return b""


def _answer(sock: socket.socket, timeout: float | None = None) -> bytes | None:
    """The next message on a process's socket (b"" once it ended), None after `timeout`."""
    sock.settimeout(timeout)
    try:
        return sock.recv(65536)
    except TimeoutError:
        return None
    except OSError:
        return b""
    finally:
        sock.settimeout(None)


class _Process:
    """A process the starter forked: known by a pidfd (a pid may be reused once it ends),
    told what to do over `control`."""

    def __init__(self, pid: int, control: socket.socket):
        self.pid, self.control = pid, control
        self._pidfd = os.pidfd_open(pid)

    @property
    def running(self) -> bool:
        return not select.select([self._pidfd], [], [], 0)[0]

    def stop(self) -> None:
        """Told to end (its socket closed), and killed if it has not within a second."""
        self.control.close()
        if not select.select([self._pidfd], [], [], 1.0)[0]:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        os.close(self._pidfd)


class Starter:
    """The process that forks each function's snapshot (infra/local/runtime.py), with the
    libraries every function loads already loaded: one per stack, made again when it
    died or its code (runtime.py) changed."""

    CODE = Path(__file__).with_name("runtime.py")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._control: socket.socket | None = None
        self._code_at = 0.0

    def snapshot(self, environment: dict[str, str]) -> tuple[_Process, IO[bytes]]:
        """A new process running a function's snapshot with this environment, and the
        pipe its output comes from."""
        with self._lock:
            if not self._current():
                self._restart()
            assert self._control is not None  # _restart made it
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            output, their_output = os.pipe()
            try:
                socket.send_fds(
                    self._control,
                    [json.dumps({"environment": environment}).encode("utf-8")],
                    [theirs.fileno(), their_output],
                )
                answer = _answer(self._control)
            finally:
                theirs.close()
                os.close(their_output)
            if not answer:
                os.close(output)
                ours.close()
                raise InitFailed(
                    {"errorType": "Runtime.ExitError", "errorMessage": "the starter exited"}
                )
            return _Process(json.loads(answer)["pid"], ours), os.fdopen(output, "rb")

    def _current(self) -> bool:
        return (
            self._process is not None
            and self._process.poll() is None
            and self.CODE.stat().st_mtime == self._code_at
        )

    def _restart(self) -> None:
        self._stop()
        self._code_at = self.CODE.stat().st_mtime
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "infra.local.runtime", str(theirs.fileno())],
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            cwd=Path(__file__).resolve().parents[2],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        self._control = ours
        if not _answer(ours, STARTER_TIMEOUT_SECONDS):
            self._stop()
            raise InitFailed(
                {"errorType": "Runtime.ExitError", "errorMessage": "the starter did not start"}
            )

    def _stop(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)
            if self._process.poll() is None:
                self._process.kill()
                self._process.wait()
            self._process = None

    def stop(self) -> None:
        with self._lock:
            self._stop()


class Snapshot:
    """A function's initialised process (infra/local/runtime.py), from which each of its
    environments is forked, as SnapStart restores each from one snapshot: made at the
    first environment asked for, and again when the code changed (a new generation)."""

    def __init__(
        self, spec: FunctionSpec, task_root: Path, log: Log, starter: Starter | None = None
    ):
        """`starter`: the stack's (else one of its own, stopped with it)."""
        self.spec, self._task_root, self._log = spec, task_root, log
        self._starter = starter or Starter()
        self._own_starter = starter is None
        self._lock = threading.Lock()
        self._process: _Process | None = None
        self._generation = -1

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def fork(self, generation: int) -> tuple[int, Connection, IO[bytes], float]:
        """A new environment of this generation's code: its pid, its connection, the
        pipe its output comes from, and when it was asked of the snapshot (once the
        snapshot was made: perf_counter). InitFailed when the function's init fails."""
        with self._lock:
            if self._generation != generation or not self._running():
                self._stop()
                self._start()
                self._generation = generation
            assert self._process is not None  # _start made it
            control = self._process.control
            asked = time.perf_counter()
            ours, theirs = socket.socketpair()
            output, their_output = os.pipe()
            try:
                socket.send_fds(control, [b"fork"], [theirs.fileno(), their_output])
                answer = _answer(control)
            finally:
                theirs.close()
                os.close(their_output)
            if not answer:
                self._stop()
                os.close(output)
                ours.close()
                raise InitFailed(
                    {"errorType": "Runtime.ExitError", "errorMessage": "the snapshot exited"}
                )
            pid = json.loads(answer)["pid"]
            return pid, Connection(ours.detach()), os.fdopen(output, "rb"), asked

    def _running(self) -> bool:
        return self._process is not None and self._process.running

    def _start(self) -> None:
        """The function's init, in a process of its own (called holding the lock)."""
        spec = self.spec
        self._process, output = self._starter.snapshot(
            {
                **spec.environment,
                "_HANDLER": spec.handler,
                "LAMBDA_TASK_ROOT": str(self._task_root),
                "_LAYERS": os.pathsep.join(map(str, spec.layer_dirs)),
                "AWS_LAMBDA_FUNCTION_NAME": spec.name,
                "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory_mb),
                "AWS_LAMBDA_FUNCTION_TIMEOUT": str(int(spec.timeout_seconds)),
                "PYTHONUNBUFFERED": "1",
            }
        )
        threading.Thread(
            target=_pass_on, args=(spec.name, output, self._log), daemon=True, name="log"
        ).start()
        try:
            limit = INIT_TIMEOUT_SECONDS + spec.timeout_seconds
            init_ms = _ready(_answer(self._process.control, limit), limit)
        except InitFailed:
            self._stop()
            raise
        _logger.debug("snapshot made", extra={"function": spec.name, "init_ms": init_ms})

    def _stop(self) -> None:
        """Ends the snapshot (called holding the lock); its environments live on."""
        if self._process is not None:
            self._process.stop()
            self._process = None

    def stop(self) -> None:
        with self._lock:
            self._stop()
        if self._own_starter:
            self._starter.stop()


class Environment:
    """One execution environment of one function: a fork of its snapshot."""

    def __init__(self, snapshot: Snapshot, log: Log, generation: int):
        self.spec, self.generation = snapshot.spec, generation
        self.last_used = time.monotonic()
        self._stopping = threading.Lock()
        self.pid, self._connection, output, asked = snapshot.fork(generation)
        # The process by a descriptor, not its pid: once it ends, the kernel may give its
        # pid to another process, which a signal by pid would then reach.
        self._pidfd = os.pidfd_open(self.pid)
        threading.Thread(
            target=_pass_on, args=(self.spec.name, output, log), daemon=True, name="log"
        ).start()
        try:
            limit = INIT_TIMEOUT_SECONDS + self.spec.timeout_seconds
            self.restore_ms = _ready(_said(self._connection, limit), limit)
            # From the fork asked of the snapshot until its hooks are done and it said so.
            self.ready_ms = round((time.perf_counter() - asked) * 1000, 1)
        except InitFailed:
            self.stop()
            raise

    def invoke(self, event: str) -> Outcome:
        deadline = time.time() + self.spec.timeout_seconds
        try:
            self._connection.send_bytes(
                json.dumps(
                    {"event": event, "request_id": str(uuid.uuid4()), "deadline": deadline}
                ).encode("utf-8")
            )
            if not self._connection.poll(self.spec.timeout_seconds):
                self.stop()
                took = f"Task timed out after {self.spec.timeout_seconds:.2f} seconds"
                return replace(_failure("Runtime.Timeout", took), timed_out=True)
            message = json.loads(self._connection.recv_bytes())
        except (EOFError, OSError):
            self.stop()
            return _failure("Runtime.ExitError", "the environment exited during the invocation")
        finally:
            self.last_used = time.monotonic()
        return Outcome(result=message.get("result"), error=message.get("error"))

    @property
    def alive(self) -> bool:
        """Its process has not ended (a pidfd reads ready once it has)."""
        if self._connection.closed:
            return False
        return not select.select([self._pidfd], [], [], 0)[0]

    def stop(self) -> None:
        """Ended at once, whatever it was doing, as Lambda ends an environment."""
        with self._stopping:
            if self._connection.closed:
                return
            self._connection.close()
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            os.close(self._pidfd)


class Pool:
    """A function's execution environments."""

    def __init__(
        self, spec: FunctionSpec, task_root: Path, log: Log, snapshot: Snapshot | None = None
    ):
        """`snapshot`: the function's, when another pool (its calls') shares it."""
        self.spec, self._log = spec, log
        self._snapshot = snapshot or Snapshot(spec, task_root, log)
        self._own_snapshot = snapshot is None
        self.generation = 0
        self._idle: list[Environment] = []
        self._count = 0  # environments, busy or idle (or starting)
        self._freed = threading.Condition()
        self._waiting: list[object] = []  # invocations waiting for a busy one, oldest first
        self._stopped = False

    def invoke(self, event: str, wait_seconds: float) -> Outcome:
        """Run one invocation in a free environment (a new one if none is free and the
        function may have another); wait at most `wait_seconds` for one to free up."""
        try:
            environment = self._acquire(wait_seconds)
        except InitFailed as failed:
            return Outcome(error=failed.error)
        if environment is None:
            busy = f"{self.spec.name} is at its concurrency ({self.spec.concurrency})"
            return _failure(THROTTLED, busy)
        outcome = environment.invoke(event)
        self._release(environment)
        return outcome

    def _acquire(self, wait_seconds: float) -> Environment | None:
        """A free environment (in turn: the oldest waiter's first). With none free and room
        for another, this starts one and takes whichever is free first, the new one or one
        finishing meanwhile (Lambda would wait for the new; here inits take far longer)."""
        deadline = time.monotonic() + wait_seconds
        start: _Start | None = None  # the environment this invocation is starting
        turn = object()  # its place in self._waiting, once it waits
        with self._freed:
            try:
                while True:
                    # Its own first, once ready: handed over, it is in no list but its own.
                    if start is not None and start.environment is not None:
                        return start.environment
                    environment = self._take_idle() if self._waiting[:1] in ([], [turn]) else None
                    if environment is not None:
                        if start is not None:
                            start.waited_for = False  # it joins the free ones when ready
                        return environment
                    if start is not None:
                        if start.error is not None:
                            raise InitFailed(start.error)
                        # Every end of a start notifies (an init ends by INIT_TIMEOUT_SECONDS).
                        self._freed.wait()
                        continue
                    if self._count < self.spec.concurrency and not self._stopped:
                        start = self._begin_start()
                        continue
                    remaining = deadline - time.monotonic()
                    if remaining <= 0 or self._stopped:
                        return None
                    if turn not in self._waiting:
                        self._waiting.append(turn)
                    self._freed.wait(remaining)
            finally:
                if turn in self._waiting:  # its turn passes to the next one
                    self._waiting.remove(turn)
                    self._freed.notify_all()

    def _take_idle(self) -> Environment | None:
        """The most recently used free environment of this code (called holding the
        lock); any of old code or dead on the way is stopped."""
        while self._idle:
            environment = self._idle.pop()
            if environment.alive and environment.generation == self.generation:
                return environment
            self._retire(environment)
        return None

    def _begin_start(self) -> _Start:
        """Count one more environment and start it beside (called holding the lock)."""
        start = _Start()
        self._count += 1
        try:
            threading.Thread(target=self._start, args=(start, self.generation), daemon=True).start()
        except BaseException:
            self._count -= 1
            raise
        return start

    def _start(self, start: _Start, generation: int) -> None:
        asked = time.perf_counter()
        try:
            environment = Environment(self._snapshot, self._log, generation)
            _logger.debug(
                "execution environment ready",
                extra={
                    "function": self.spec.name,
                    "ready_ms": environment.ready_ms,  # once the snapshot was there
                    "asked_ms": round((time.perf_counter() - asked) * 1000, 1),
                    "restore_ms": environment.restore_ms,
                },
            )
        except BaseException as exc:
            with self._freed:
                self._count -= 1
                start.error = (
                    exc.error
                    if isinstance(exc, InitFailed)
                    else {"errorType": type(exc).__name__, "errorMessage": str(exc)}
                )
                self._freed.notify_all()
            return
        with self._freed:
            if start.waited_for:
                start.environment = environment
                self._freed.notify_all()
            else:
                self._put_back(environment)

    def _release(self, environment: Environment) -> None:
        with self._freed:
            self._put_back(environment)

    def _put_back(self, environment: Environment) -> None:
        """Free again, or stopped if its code is old or the pool stopped (called holding
        the lock)."""
        if environment.alive and environment.generation == self.generation and not self._stopped:
            self._idle.append(environment)
        else:
            self._retire(environment)
        self._freed.notify_all()

    def _retire(self, environment: Environment) -> None:
        """Stop one environment (called holding the lock)."""
        self._count -= 1
        threading.Thread(target=environment.stop, daemon=True).start()

    def warm(self) -> None:
        """Start one environment now, if the function has none, so that the first
        request does not pay the cold start (as provisioned concurrency of one)."""
        with self._freed:
            if self._count:
                return
        with contextlib.suppress(InitFailed):  # the first invocation will report it
            environment = self._acquire(0)
            if environment is not None:
                self._release(environment)

    def recycle(self) -> None:
        """Replace every environment: the code changed."""
        with self._freed:
            self.generation += 1
            idle, self._idle = self._idle, []
            for environment in idle:
                self._retire(environment)

    def reap(self, idle_seconds: float = IDLE_SECONDS) -> None:
        """Stop the environments idle for longer than `idle_seconds`."""
        now = time.monotonic()
        with self._freed:
            keep = [e for e in self._idle if now - e.last_used < idle_seconds]
            for environment in self._idle:
                if environment not in keep:
                    self._retire(environment)
            self._idle = keep

    @property
    def environments(self) -> int:
        return self._count

    def processes(self) -> list[int]:
        with self._freed:
            return [e.pid for e in self._idle if e.alive]

    def stop(self) -> None:
        """Stop the free environments now, and each busy or starting one as it frees up;
        an invocation waiting for one gets none."""
        with self._freed:
            self._stopped = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
            self._freed.notify_all()
        for environment in idle:
            environment.stop()
        if self._own_snapshot:
            self._snapshot.stop()


@dataclass(frozen=True)
class _Delivery:
    """One asynchronous invocation on its way: its event, the attempts made so far and
    when it was queued; once it has failed for good, the record for its on-failure
    destination (so that sending that again never runs the function again); and how many
    times the service itself could not carry it on (how long it waits for the next)."""

    event: str
    queued_at: float
    attempt: int = 0
    record: dict | None = None
    kept: int = 0


class Deliveries:
    """The asynchronous invocations of one function: queued, run, tried again on
    failure, then sent to its on-failure destination. Nothing ends a delivery thread,
    and no invocation is dropped: one the service cannot carry on (its destination's
    queue unreachable, the emulator holding it dead) is kept and tried again, waiting
    twice as long each time up to KEPT_RETRY_MAX_SECONDS."""

    def __init__(
        self,
        pool: Pool,
        send_to_destination: Callable[[str, dict], None],
        retry_seconds: float = ASYNC_RETRY_SECONDS,
        aws_up: Callable[[], bool] = lambda: True,
    ):
        self._pool, self._send, self._aws_up = pool, send_to_destination, aws_up
        self._retry_seconds = retry_seconds
        self._queue: queue.Queue = queue.Queue()
        self._pending = 0
        self._settled = threading.Condition()
        self._workers = [
            threading.Thread(target=self._run, daemon=True, name=f"async-{pool.spec.name}")
            for _ in range(pool.spec.concurrency)
        ]
        for worker in self._workers:
            worker.start()

    def submit(self, event: str) -> None:
        with self._settled:
            self._pending += 1
        self._queue.put(_Delivery(event, time.time()))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                if self._aws_up():
                    self._deliver(item)
                else:
                    self._keep(item, "the AWS emulator is down")
            except Exception as exc:  # the service's own failure: never the thread's end
                self._keep(item, "running it failed", exc)

    def _deliver(self, item: _Delivery) -> None:
        """Run it, unless it already failed for good; then it is done, tried again
        later, or sent to its on-failure destination."""
        if item.record is None:
            failed = self._invoke(item)
            if failed is None:
                return
            item = failed
        destination = self._pool.spec.asynchronous.on_failure
        assert destination is not None and item.record is not None  # as _invoke made it
        try:
            self._send(destination, item.record)
        except Exception as exc:
            self._keep(item, f"sending it to {destination} failed", exc)
            return
        self._done()

    def _invoke(self, item: _Delivery) -> _Delivery | None:
        """One attempt. Returns the item with its on-failure record when it failed for
        good and the function has a destination; None when it is settled otherwise
        (done, dropped as Lambda drops it without a destination, or tried again later)."""
        outcome = self._pool.invoke(item.event, wait_seconds=60)
        config = self._pool.spec.asynchronous
        too_old = time.time() - item.queued_at > config.max_age_seconds
        if outcome.failed and item.attempt < config.retries and not too_old:
            retry = replace(item, attempt=item.attempt + 1)
            self._later(retry, self._retry_seconds * 2**item.attempt)
            return None
        if not outcome.failed or not config.on_failure:
            self._done()
            return None
        condition = "EventAgeExceeded" if too_old else "RetriesExhausted"
        record = _failure_record(
            self._pool.spec.name, item.event, outcome, item.attempt + 1, condition
        )
        return replace(item, record=record)

    def _keep(self, item: _Delivery, why: str, exc: Exception | None = None) -> None:
        """The service could not carry `item` on: say so (the error's traceback the first
        time), and try again later."""
        delay = min(self._retry_seconds * 2**item.kept, KEPT_RETRY_MAX_SECONDS)
        error = {"error": f"{type(exc).__name__}: {exc}"} if exc is not None else {}
        _logger.error(
            f"asynchronous invocation of {self._pool.spec.name} kept: {why}; "
            f"tried again in {delay:g} s",
            extra={"function": self._pool.spec.name, **error},
            exc_info=exc if item.kept == 0 else None,
        )
        self._later(replace(item, kept=item.kept + 1), delay)

    def _later(self, item: _Delivery, delay: float) -> None:
        timer = threading.Timer(delay, self._queue.put, args=(item,))
        timer.daemon = True
        timer.start()

    def _done(self) -> None:
        with self._settled:
            self._pending -= 1
            self._settled.notify_all()

    def settle(self, timeout: float) -> bool:
        """Wait until every invocation submitted so far is done or sent on (tests)."""
        with self._settled:
            return self._settled.wait_for(lambda: self._pending == 0, timeout)

    def stop(self) -> None:
        """Its queue is in memory: what is still in it is dropped, and said so."""
        with self._settled:
            pending = self._pending
        if pending:
            _logger.warning(
                f"{pending} asynchronous invocation(s) of {self._pool.spec.name} neither "
                "done nor sent to its on-failure destination: dropped with the stop",
                extra={"function": self._pool.spec.name, "dropped": pending},
            )
        for _ in self._workers:
            self._queue.put(None)


def _failure_record(
    function: str, event: str, outcome: Outcome, attempts: int, condition: str
) -> dict:
    """What Lambda sends an on-failure destination: the request and why it failed."""
    return {
        "version": "1.0",
        "timestamp": datetime.now(UTC).isoformat(),
        "requestContext": {
            "requestId": str(uuid.uuid4()),
            "functionArn": f"arn:aws:lambda:local:000000000000:function:{function}:$LATEST",
            "condition": condition,
            "approximateInvokeCount": attempts,
        },
        "requestPayload": _payload(event),
        "responseContext": {
            "statusCode": 200,
            "executedVersion": "$LATEST",
            "functionError": "Unhandled",
        },
        "responsePayload": outcome.error,
    }


def _payload(event: str):
    """An event as its record carries it: its JSON, or its text if it is not JSON (the
    Invoke API takes any body)."""
    try:
        return json.loads(event)
    except ValueError:
        return event


class LambdaService:
    """Every function of the stack: invoked by name, synchronously or not."""

    def __init__(
        self,
        specs: dict[str, FunctionSpec],
        task_roots: dict[str, Path],
        log: Log,
        send_to_destination: Callable[[str, dict], None],
        aws_up: Callable[[], bool] = lambda: True,
    ):
        """`aws_up`: whether AWS's services answer, waiting a while if they are being
        restarted: an asynchronous invocation waits for them rather than spend its tries
        on a local emulator's restart (and never meets one that has not restored its data
        yet)."""
        self.specs = specs
        self.starter = Starter()
        self.snapshots = {
            name: Snapshot(spec, task_roots[name], log, self.starter)
            for name, spec in specs.items()
        }
        self.pools = {
            name: Pool(spec, task_roots[name], log, self.snapshots[name])
            for name, spec in specs.items()
        }
        self.call_pools = {
            name: Pool(
                replace(spec, concurrency=CALL_ENVIRONMENTS),
                task_roots[name],
                log,
                self.snapshots[name],
            )
            for name, spec in specs.items()
            if spec.scales
        }
        self.deliveries = {
            name: Deliveries(pool, send_to_destination, aws_up=aws_up)
            for name, pool in self.pools.items()
        }
        self._reaper = threading.Thread(target=self._reap, daemon=True, name="reaper")
        self._stopping = threading.Event()
        self._reaper.start()

    def function(self, name: str) -> str | None:
        """The function a FunctionName means: its name, an ARN of it, or either with a
        qualifier."""
        name = name.split(":function:")[-1].split(":")[0]
        return name if name in self.pools else None

    def invoke(
        self, name: str, event: str, wait_seconds: float = 29, for_a_call: bool = False
    ) -> Outcome:
        """`for_a_call`: another function's synchronous call (see the module's text): a
        free environment of the function's API if there is one, else one of its own."""
        calls = self.call_pools.get(name) if for_a_call else None
        if calls is None:
            return self.pools[name].invoke(event, wait_seconds)
        outcome = self.pools[name].invoke(event, 0)
        if outcome.error and outcome.error["errorType"] == THROTTLED:
            return calls.invoke(event, wait_seconds)
        return outcome

    def submit(self, name: str, event: str) -> None:
        self.deliveries[name].submit(event)

    def warm(self, names, called=()) -> None:
        """One environment of each function of `names`, and of the call pool of each of
        `called` (those other functions call), started now."""
        pools = [self.pools[name] for name in names]
        pools += [self.call_pools[name] for name in called if name in self.call_pools]
        threads = [threading.Thread(target=pool.warm) for pool in pools]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def processes(self) -> dict[str, dict]:
        """Each function's processes now: its snapshot's pid (None before its first
        environment) and its environments' (the snapshot's children)."""
        children = _children()
        return {
            name: {"snapshot": snapshot.pid, "environments": children.get(snapshot.pid, [])}
            for name, snapshot in self.snapshots.items()
        }

    def _all_pools(self) -> list[Pool]:
        return [*self.pools.values(), *self.call_pools.values()]

    def recycle(self, names) -> None:
        for pool in self._all_pools():
            if pool.spec.name in names:
                pool.recycle()

    def _reap(self) -> None:
        while not self._stopping.wait(30):
            for pool in self._all_pools():
                pool.reap()

    def stop(self) -> None:
        self._stopping.set()
        for deliveries in self.deliveries.values():
            deliveries.stop()
        for pool in self._all_pools():
            pool.stop()
        for snapshot in self.snapshots.values():
            snapshot.stop()
        self.starter.stop()


def _children() -> dict[int | None, list[int]]:
    """Every process's children, by parent pid (Linux's /proc)."""
    found: dict[int | None, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:  # ended since it was listed
            continue
        found.setdefault(parent, []).append(int(entry.name))
    return found


class _InvokeServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A client that went away (its process stopped, its read timed out) ends its
        connection, which is no error of the server's: socketserver would print its
        traceback into the stack's log."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


# Lambda's Invoke API path (also answered by the tests' in-process stand-in).
INVOKE_PATH = re.compile(r"^/2015-03-31/functions/(?P<name>[^/]+)/invocations$")
# Not Lambda's: each function's processes, for the tests and the benchmarks.
PROCESSES_PATH = "/_local/functions"


class _Invoke(BaseHTTPRequestHandler):
    """Lambda's Invoke API, answered by `service`: a handler per connection, as
    http.server makes them, given its service by endpoint()."""

    # Keep-alive, as Lambda's endpoint: a function's client reuses its connection
    # (every answer has a Content-Length), not a new one and a thread per invoke.
    protocol_version = "HTTP/1.1"
    # An answer leaves as one write, its head and body together, with Nagle's
    # algorithm off: written apart, the body waited for the client's delayed ACK of
    # the head (40 ms on Linux) on a kept-alive connection, in every invoke.
    wbufsize = -1
    disable_nagle_algorithm = True

    def __init__(self, service: LambdaService, *args, **kwargs) -> None:
        self.service = service  # set first: the base class's __init__ handles the request
        super().__init__(*args, **kwargs)

    def do_GET(self):  # noqa: N802 - http.server's name
        if self.path.split("?")[0] == PROCESSES_PATH:
            self._send(200, self.service.processes())
        else:
            self._send(404, {"Type": "User", "Message": "Not found"})

    def do_POST(self):  # noqa: N802 - http.server's name
        match = INVOKE_PATH.match(self.path.split("?")[0])
        length = int(self.headers.get("Content-Length") or 0)
        payload = self.rfile.read(length).decode("utf-8") if length else "{}"
        name = self.service.function(unquote(match["name"])) if match else None
        if name is None:
            self._send(
                404,
                {"Type": "User", "Message": "Function not found"},
                {"x-amzn-ErrorType": "ResourceNotFoundException"},
            )
            return
        invocation = self.headers.get("X-Amz-Invocation-Type", "RequestResponse")
        if invocation == "DryRun":
            self._send(204, None)  # the caller may invoke it; nothing runs
        elif invocation == "Event":
            self.service.submit(name, payload)
            self._send(202, None)
        else:
            outcome = self.service.invoke(name, payload, for_a_call=True)
            if outcome.error and outcome.error["errorType"] == THROTTLED:
                self._send(
                    429,
                    {"Type": "User", "message": outcome.error["errorMessage"]},
                    {"x-amzn-ErrorType": "TooManyRequestsException"},
                )
            elif outcome.failed:
                self._send(200, outcome.error, {"X-Amz-Function-Error": "Unhandled"})
            else:
                self._send(200, None, raw=(outcome.result or "null").encode("utf-8"))

    def _send(self, status, body, headers=None, raw: bytes | None = None):
        data = (
            raw if raw is not None else (b"" if body is None else json.dumps(body).encode("utf-8"))
        )
        self.send_response(status)
        for key, value in {
            "Content-Type": "application/json",
            "X-Amz-Executed-Version": "$LATEST",
            **(headers or {}),
        }.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def endpoint(service: LambdaService, sock: socket.socket | None = None, port: int = 0):
    """Lambda's Invoke API over HTTP for `service` (AWS_ENDPOINT_URL_LAMBDA points here):
    what the functions' own Lambda clients call, as on AWS."""
    server = _InvokeServer(
        ("127.0.0.1", port), functools.partial(_Invoke, service), bind_and_activate=sock is None
    )
    if sock is not None:
        server.socket.close()
        server.socket, server.server_address = sock, sock.getsockname()
    server.daemon_threads = True
    return BackgroundServer.of(server, "local-lambda")
