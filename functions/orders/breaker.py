"""The stock check's circuit breaker: pybreaker's, with its state shared by every execution
environment of the orders function, and no lock held while the guarded call runs.

pybreaker keeps a breaker's state in a storage; here the storage is one DynamoDB item
(orders.breaker_state), so an inventory outage opens the breaker for every environment
after `fail_max` failures in all, not `fail_max` in each of them. The state is read at
most once a second per environment, so a healthy order pays no call for it most of the
time; every change is one conditional write, so two environments never both open it or
both run the trial.

pybreaker holds its lock for the whole guarded call, which would queue every other stock
check of an environment behind a slow one. Here nothing is held while the call runs: the
storage's writes admit a call and record its outcome. The rules stay pybreaker's:
`fail_max` failures open it; while open, calls are refused until `reset_timeout` has
passed; then exactly one trial call is let through, which closes it on success and opens
it again on failure; the call whose failure opens it is told so (CircuitBreakerError).
"""

import math
import time

import pybreaker

from orders.breaker_state import BreakerState


class ConcurrentBreaker(pybreaker.CircuitBreaker):
    def __init__(self, state: BreakerState, **options):
        super().__init__(state_storage=state, **options)
        self._shared = state

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
        opened_at = self._shared.opened_seconds() or time.time()
        return max(1, math.ceil(opened_at + self.reset_timeout - time.time()))

    def _admit(self) -> bool:
        """Let a call through, or refuse it; True when it is the half-open trial."""
        if self._shared.state == pybreaker.STATE_CLOSED:
            return False
        if self._shared.claim_trial(self.reset_timeout):
            self._notice(pybreaker.STATE_HALF_OPEN)
            return True
        raise pybreaker.CircuitBreakerError("circuit breaker open")

    def _failed(self, trial: bool) -> None:
        if trial:
            self._shared.end_trial(succeeded=False)
            self._notice(pybreaker.STATE_OPEN)
            raise pybreaker.CircuitBreakerError("trial call failed, circuit breaker open")
        outcome = self._shared.count_failure(self.fail_max)
        if outcome == BreakerState.OPENED:
            self._notice(pybreaker.STATE_OPEN)
            raise pybreaker.CircuitBreakerError("failures threshold reached, circuit breaker open")
        if outcome == BreakerState.ALREADY_OPEN:
            # Admitted while closed, failed after another environment opened it.
            raise pybreaker.CircuitBreakerError("circuit breaker open")

    def _succeeded(self, trial: bool) -> None:
        if trial:
            self._shared.end_trial(succeeded=True)
            self._notice(pybreaker.STATE_CLOSED)
        else:
            self._shared.forget_failures()

    def _notice(self, state: str) -> None:
        """Tell the listeners (the BreakerOpened metric) of a change this environment
        made; pybreaker's cached state follows it."""
        self._state = self._create_new_state(state, prev_state=self._state, notify=True)
