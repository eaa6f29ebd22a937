"""pybreaker's circuit breaker, with no lock held while the guarded call runs.

pybreaker holds its lock for the whole call, so one slow inventory queues every other
stock check of the process behind it (16 checks against a hung inventory answered after
2, 4, 6 ... seconds). Here the lock guards only the breaker's bookkeeping: admitting a
call, then recording its outcome. The rules stay pybreaker's: `fail_max` failures open
it; while open, calls are refused until `reset_timeout` has passed; then exactly one
trial call is let through, which closes it on success and opens it again on failure;
the call whose failure trips it is told so (CircuitBreakerError).
"""

import math
from datetime import UTC, datetime

import pybreaker


class ConcurrentBreaker(pybreaker.CircuitBreaker):
    def __init__(self, **options):
        super().__init__(**options)
        self._trial_running = False

    def call(self, func, *args, **kwargs):
        trial = self._admit()
        try:
            result = func(*args, **kwargs)
        except BaseException as exc:
            if self.is_system_error(exc):
                self._failed(trial)  # raises CircuitBreakerError once it is open
            elif trial:
                self._succeeded(trial)
            raise
        self._succeeded(trial)
        return result

    def seconds_until_trial(self) -> int:
        """How long, rounded up and at least 1, until an open breaker lets a trial through."""
        opened_at = self._state_storage.opened_at or datetime.now(UTC)
        remaining = (opened_at - datetime.now(UTC)).total_seconds() + self.reset_timeout
        return max(1, math.ceil(remaining))

    def _admit(self) -> bool:
        """Let a call through, or refuse it; True when it is the half-open trial."""
        with self._lock:
            state = self.current_state
            if state == pybreaker.STATE_CLOSED:
                return False
            if state == pybreaker.STATE_OPEN:
                opened_at = self._state_storage.opened_at
                waited = (datetime.now(UTC) - opened_at).total_seconds() if opened_at else 0
                if opened_at and waited < self.reset_timeout:
                    raise pybreaker.CircuitBreakerError("circuit breaker open")
                self.half_open()
            if self._trial_running:
                raise pybreaker.CircuitBreakerError("a trial call is deciding")
            self._trial_running = True
            return True

    def _failed(self, trial: bool) -> None:
        with self._lock:
            if trial:
                self._trial_running = False
                self.open()
                raise pybreaker.CircuitBreakerError("trial call failed, circuit breaker open")
            if self.current_state != pybreaker.STATE_CLOSED:
                # Admitted while closed, failed after others opened it: it is open now.
                raise pybreaker.CircuitBreakerError("circuit breaker open")
            self._inc_counter()
            if self.fail_counter >= self.fail_max:
                self.open()
                raise pybreaker.CircuitBreakerError("failures threshold reached, "
                                                    "circuit breaker open")

    def _succeeded(self, trial: bool) -> None:
        with self._lock:
            if trial:
                self._trial_running = False
                self.close()
            elif self.current_state == pybreaker.STATE_CLOSED:
                self._state_storage.reset_counter()
