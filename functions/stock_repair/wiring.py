"""What the stock-repair function is made of: the repair (stock_repair.repair) on a
schedule. It reads the orders table through the layer's reader (common.orders.repository),
and asks the inventory's function for its reservations and
moves (common.stock.client, through a breaker of its own: it runs alone); it loads
neither the HTTP edge nor the order events."""

from datetime import timedelta
from typing import Any

from common.http.service_calls import ByInvoke
from common.orders.repository import OrderReader
from common.platform import aws
from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from common.platform.settings import Settings
from common.stock.client import StockClient
from stock_repair.repair import Repair

SERVICE = "stock-repair"
FUNCTION = "StockRepairFunction"


class RepairHandler(FunctionHandler):
    def __init__(self, settings: Settings):
        logger = get_logger(SERVICE)
        with aws.acting_as(FUNCTION):
            self.orders = OrderReader(settings)
            self.inventory = inventory(settings)
        self.repair = Repair(
            self.orders,
            self.inventory,
            logger,
            grace=timedelta(seconds=settings.stock_repair_grace_seconds),
        )
        super().__init__(FUNCTION, logger, self.run)

    def run(self, event: dict, context: Any) -> dict:
        with aws.acting_as(FUNCTION):
            return self.repair(context)


def inventory(settings: Settings) -> StockClient:
    """The inventory's function (INVENTORY_FUNCTION) invoked, through a breaker kept in
    this process: the repair runs alone, and its openings refuse no order."""
    function = settings.inventory_function
    return StockClient(
        fail_max=settings.breaker_fail_max,
        reset_seconds=settings.breaker_reset_seconds,
        service=SERVICE,
        moves=ByInvoke(function, aws.lambda_client(settings)) if function else None,
        alarmed=False,
    )


def create(settings: Settings) -> RepairHandler:
    return RepairHandler(settings)


# No `rehearse`: nobody waits on this function's first run (a schedule), so its init
# stays short and that run opens its own connections (common.platform.lambda_init.start).
