"""What the figures function is made of: the streams of the products, orders and shipments
tables hand it their records (its event source mappings); it reads each with its
service's own model (repository.Images) and applies the changes to the figures table."""

from typing import Any

from common.platform import aws
from common.platform.clock import utcnow
from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from common.platform.settings import Cloud
from dashboard_figures import service
from dashboard_figures.repository import FiguresStore, Images

SERVICE = "dashboard-figures"
FUNCTION = "DashboardFiguresFunction"


class FiguresHandler(FunctionHandler):
    def __init__(self, cloud: Cloud):
        logger = get_logger(SERVICE)
        with aws.acting_as(FUNCTION):
            self.images = Images(cloud)
            self.store = FiguresStore.from_settings(cloud)
        super().__init__(FUNCTION, logger, self.changes)

    def changes(self, event: dict, context: Any) -> dict:
        records = event.get("Records") or []
        changes = [change for record in records if (change := self.images.change_of(record))]
        written = service.apply(changes, self.store, utcnow)
        # No line per batch: every write of the platform makes one.
        return {"changes": len(changes), "written": written}


def create(cloud: Cloud) -> FiguresHandler:
    return FiguresHandler(cloud)


# No `rehearse`: nobody waits on this function's first run (a stream's batch), so its init
# stays short and that run opens its own connections (common.platform.lambda_init.start).
