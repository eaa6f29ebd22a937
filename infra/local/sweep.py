"""The event sweep on a timer, for the local stack: what EventBridge's schedule does on
AWS (infra/template.yaml runs EventSweeperFunction every 5 minutes)."""

import threading
from collections.abc import Callable

# Shorter than on AWS: a developer who watches an event come back should not wait long.
LOCAL_SWEEP_SECONDS = 60


class SweepTimer:
    def __init__(self, sweep: Callable[[], object], logger,
                 every_seconds: float = LOCAL_SWEEP_SECONDS):
        self._sweep, self._logger, self._every = sweep, logger, every_seconds
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="event-sweep", daemon=True)

    def start(self) -> "SweepTimer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stopped.wait(self._every):
            try:
                self._sweep()
            except Exception:  # the next run tries again, as the scheduled function would
                self._logger.exception("the event sweep failed")
