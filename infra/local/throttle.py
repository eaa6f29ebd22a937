"""Throttling as API Gateway's stage throttling does it: a token bucket per API.

The bucket holds at most `burst` tokens and gains `rate` a second; each request takes
one, and one that finds none is answered 429 `{"message": "Too Many Requests"}` without
reaching anything behind it (docs/api.md#limits). The local gateway and the notification
service each have their own, with the limits the template gives their stages.
"""

import threading
import time
from collections.abc import Callable

TOO_MANY_BODY = b'{"message":"Too Many Requests"}'


class TokenBucket:
    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst = rate, burst
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()
        self._lock = threading.Lock()

    def take(self) -> bool:
        """One request's token; False when there is none (throttled)."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
            self._last = now
            if self._tokens >= 1:
                self._tokens -= 1
                return True
            return False
