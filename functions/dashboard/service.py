"""The dashboard's one use case: the figures read, the services checked, side by side,
and the answer made of both at one instant (dashboard.rules)."""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Protocol

from snapshot_restore_py import register_after_restore

from common.dashboard import layout
from common.http.service_calls import OnBehalf
from dashboard import rules
from dashboard.rules import Stored


class Figures(Protocol):
    def read(self, hour: str) -> Stored: ...


class Services(Protocol):
    def check(self, on_behalf: OnBehalf) -> dict[str, str]: ...


# The checks wait on the network (up to their timeout) while the figures are read.
_beside = ThreadPoolExecutor(max_workers=4, thread_name_prefix="dashboard")


@register_after_restore
def _new_pool() -> None:
    """A restored environment (common.platform.restore) has none of the snapshot's threads."""
    global _beside
    _beside = ThreadPoolExecutor(max_workers=4, thread_name_prefix="dashboard")


def dashboard(
    figures: Figures, services: Services, on_behalf: OnBehalf, clock: Callable[[], datetime]
) -> dict:
    """GET /api/dashboard's answer: the figures as they stand, and which services are up."""
    checked = _beside.submit(services.check, on_behalf)
    now = clock()
    stored = figures.read(layout.hour_at(now))
    return rules.answer(stored, checked.result(), now)
