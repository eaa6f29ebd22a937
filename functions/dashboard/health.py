"""Which services are up (docs/api.md#dashboard): each asked, all at once, a question that
changes nothing and that only it answers (a read of an id no one has, the notification
service's health route), as a client of its API asks it: over HTTP, with the caller's
own token (dashboard.wiring says where). A service is UP when it answers as itself
within CHECK_SECONDS; anything else (no answer in time, a 5xx, the gateway's 502 of a
failed function) is DOWN. A service that does not answer delays the dashboard by
CHECK_SECONDS, never more."""

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

from common.http.service_calls import CallFailed, CannotAsk, OnBehalf, Routes
from common.platform import restore
from common.platform.lambda_init import REHEARSAL_ID
from dashboard.rules import DOWN, UP

CHECK_SECONDS = 2.0


@dataclass(frozen=True)
class Check:
    """What a service is asked, and the answers that mean it answered as itself."""

    route: str
    path_parameters: Mapping[str, str]
    healthy: frozenset[int]


# By the name the dashboard shows each under (dashboard.rules.SERVICES).
CHECKS = {
    "inventario": Check("/api/inventario/{id}", {"id": REHEARSAL_ID}, frozenset({200, 404})),
    "pedidos": Check("/api/pedidos/{id}", {"id": REHEARSAL_ID}, frozenset({200, 404})),
    "envios": Check("/api/envios/{id}", {"id": REHEARSAL_ID}, frozenset({200, 404})),
    "notificaciones": Check("/notificaciones/health", {}, frozenset({200})),
}


class Health:
    """The services, each reached as its settings say (wiring)."""

    def __init__(self, services: Mapping[str, Routes], seconds: float = CHECK_SECONDS):
        self._services = dict(services)
        self._seconds = seconds
        # A check that outlives its wait goes on in its thread until its own timeout:
        # room for a few dashboards' worth of them.
        self._new_pool()
        restore.on_restore(self._new_pool)

    def _new_pool(self) -> None:
        """Also in a restored environment (common.platform.restore), which has none of the
        snapshot's threads."""
        self._pool = ThreadPoolExecutor(
            max_workers=4 * len(CHECKS), thread_name_prefix="health-check"
        )

    def check(self, on_behalf: OnBehalf) -> dict[str, str]:
        """{service: UP or DOWN}, asked at once, in CHECK_SECONDS at most."""
        asked = {
            name: self._pool.submit(self._one, name, on_behalf)
            for name in CHECKS
            if name in self._services
        }
        done, _ = wait(asked.values(), timeout=self._seconds)
        return {
            name: (future.result() if future in done else DOWN) for name, future in asked.items()
        } | {name: DOWN for name in CHECKS if name not in asked}

    def _one(self, name: str, on_behalf: OnBehalf) -> str:
        check = CHECKS[name]
        try:
            status, _ = self._services[name].call(
                "GET", check.route, dict(check.path_parameters), on_behalf
            )
        except (CallFailed, CannotAsk):
            return DOWN
        return UP if status in check.healthy else DOWN
