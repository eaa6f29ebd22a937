"""What the event-sweep function is made of: the sweep (orders.sweep) on a schedule."""

from typing import Any

from common.platform import aws
from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from common.platform.settings import Settings
from event_sweep.sweep import Sweep

SERVICE = "event-sweep"
FUNCTION = "EventSweeperFunction"


class SweepHandler(FunctionHandler):
    def __init__(self, settings: Settings):
        logger = get_logger(SERVICE)
        with aws.acting_as(FUNCTION):
            self.sweep = Sweep(settings, logger)
        super().__init__(FUNCTION, logger, self.sweep_pending)

    def sweep_pending(self, event: dict, context: Any) -> dict:
        return self.sweep(context)


def create(settings: Settings) -> SweepHandler:
    return SweepHandler(settings)


# No `rehearse`: nobody waits on this function's first run (a schedule), so its init
# stays short and that run opens its own connections (common.platform.lambda_init.start).
