"""What the event-sweep function is made of: the sweep (orders.sweep) on a schedule."""

from typing import Any

from common.platform import aws
from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from common.platform.settings import Cloud, Peers
from event_sweep.sweep import Sweep

SERVICE = "event-sweep"
FUNCTION = "EventSweeperFunction"


class SweepHandler(FunctionHandler):
    def __init__(self, cloud: Cloud, peers: Peers):
        logger = get_logger(SERVICE)
        with aws.acting_as(FUNCTION):
            self.sweep = Sweep(cloud, peers, logger)
        super().__init__(FUNCTION, logger, self.sweep_pending)

    def sweep_pending(self, event: dict, context: Any) -> dict:
        return self.sweep(context)


def create(cloud: Cloud, peers: Peers) -> SweepHandler:
    return SweepHandler(cloud, peers)


# No `rehearse`: nobody waits on this function's first run (a schedule), so its init
# stays short and that run opens its own connections (common.platform.lambda_init.start).
