"""The stack's AWS emulator (infra/local/aws_process.py), watched from the stack.

Every DynamoDB and SQS call of every function goes to the emulator's process, so its
death must not go unnoticed: the stack looks at it every WATCH_SECONDS and, when it has
died, says so at once in one ERROR line naming the cause.

- With a data directory (LOCAL_DATA_DIR), another emulator is started on the same port
  from the data saved there, so the functions' endpoint does not change. The tables are
  saved at most a second behind (infra/local/persistence.py): the writes answered in
  the emulator's last second can be lost, as in any crash; the counters and the queues
  are saved before each answer and lose nothing.
- With the data in memory only there is nothing to restart from, and a stack that went
  on with empty tables would answer 404 for what was just created: `on_gone` is told
  why, and the stack stops. So it is too when a restart fails, or when a restarted
  emulator dies again within CRASH_LOOP_SECONDS (what kills it would kill the next).

Meanwhile `wait_until_up` holds whoever needs the emulator (the gateway, the
asynchronous invocations) until it is back with its data restored (the new process
answers on its port a moment before that), and `failed_since` tells a request that
failed whether the emulator died under it.
"""

import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

from common.platform.logs import get_logger
from infra.local.aws_process import NO_HOOKS, AwsProcess, Hooks
from infra.local.persistence import DataError

WATCH_SECONDS = 0.2
CRASH_LOOP_SECONDS = 30.0
# How long whoever needs the emulator waits for its restart (about 1.5 s) before it gives
# up on this try: the gateway's 503, an asynchronous invocation kept for later.
WAIT_SECONDS = 15.0

_logger = get_logger("local-stack")


def _cause(returncode: int) -> str:
    """How a process ended, as a person says it: "killed by SIGKILL", "exited with 1"."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with {returncode}"


class WatchedAws:
    """The emulator's process, restarted from its data when it dies (see the module)."""

    def __init__(
        self,
        port: int,
        region: str,
        data_dir: Path | None,
        on_gone: Callable[[str], None],
        hooks: Hooks = NO_HOOKS,
    ):
        self._region, self._data_dir, self._on_gone = region, data_dir, on_gone
        self._hooks = hooks  # at every start: a restart restores the data too
        self._current = AwsProcess(port, region, data_dir, hooks)
        self.url = self._current.url
        self.restored = self._current.restored
        self.migrated = self._current.migrated
        self.user_pool = self._current.user_pool
        self._started_at = time.monotonic()
        self._up = True
        self._gone = False
        self._deaths = 0
        self._trouble = ""  # why it is down, while it is
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True, name="aws-watch")

    def watch(self) -> "WatchedAws":
        self._thread.start()
        return self

    @property
    def deaths(self) -> int:
        """How many times it has died so far."""
        return self._deaths

    @property
    def trouble(self) -> str:
        """Why it is not answering now ("" while it is up)."""
        return self._trouble

    def wait_until_up(self, timeout: float) -> bool:
        """Whether it is up, waiting up to `timeout` seconds while it restarts; False at
        once when it is gone for good."""
        with self._changed:
            return self._changed.wait_for(lambda: self._up or self._gone, timeout) and self._up

    def failed_since(self, deaths: int) -> bool:
        """Whether it died since `deaths` were counted, noticed yet or not: a request
        whose function failed at once on the dead port fails before the next look."""
        return self._current.process.poll() is not None or self._deaths != deaths

    def _watch(self) -> None:
        while not self._stopping.wait(WATCH_SECONDS):
            returncode = self._current.process.poll()
            if returncode is not None and not self._stopping.is_set():
                self._died(_cause(returncode))
            if self._gone:
                return

    def _died(self, cause: str) -> None:
        """Down: restarted from the data directory, or given up on, saying which."""
        died = f"the AWS emulator died ({cause})"
        with self._changed:
            self._up, self._deaths = False, self._deaths + 1
            self._trouble = f"{died}; it is being restarted"
        lived = time.monotonic() - self._started_at
        if self._data_dir is None:
            self._give_up(
                f"{died}; its data was in memory only (LOCAL_DATA_DIR is empty) and is gone"
            )
        elif self._deaths > 1 and lived < CRASH_LOOP_SECONDS:
            self._give_up(f"{died} {lived:.0f} s after its restart: not restarted again")
        else:
            _logger.error(
                f"{died}: restarting it on {self.url} from its data in {self._data_dir} "
                "(writes answered in its last second may be lost)",
                extra={"pid": self._current.process.pid, "cause": cause},
            )
            self._restart()

    def _restart(self) -> None:
        """Another emulator on the same port, from the data directory."""
        began = time.monotonic()
        try:
            process = AwsProcess(
                int(self.url.rsplit(":", 1)[1]), self._region, self._data_dir, self._hooks
            )
        except (OSError, DataError) as exc:
            self._give_up(f"the AWS emulator could not be restarted: {exc}")
            return
        with self._changed:
            self._current, self._started_at = process, time.monotonic()
            self._up, self._trouble = True, ""
            self._changed.notify_all()
        _logger.info(
            f"the AWS emulator restarted from its data in {self._data_dir} "
            f"({time.monotonic() - began:.1f} s)",
            extra={"pid": process.process.pid, "restored": process.restored},
        )

    def _give_up(self, why: str) -> None:
        _logger.error(f"{why}: the stack stops")
        with self._changed:
            self._gone, self._trouble = True, why
            self._changed.notify_all()
        self._on_gone(why)

    def unwatch(self) -> None:
        """A stop is coming: the emulator ending from now on is part of it (a SIGTERM to
        the stack's whole process group reaches it too), not a death to restart from."""
        self._stopping.set()

    def stop(self) -> None:
        """Stops watching, then the emulator (its data saved)."""
        self.unwatch()
        if self._thread.is_alive():
            self._thread.join()
        self._current.stop()
