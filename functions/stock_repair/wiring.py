"""What the stock-repair function is made of: the repair (stock_repair.repair) on a
schedule. It reads the orders table through the orders package, which its artifact
carries (functions/Makefile), and asks the inventory's function for its reservations and
moves; it loads neither the HTTP edge nor the order events."""

from datetime import timedelta
from typing import Any

from common import aws
from common.handlers import FunctionHandler
from common.logs import get_logger
from common.settings import Settings
from orders.repository import OrderRepository
from orders.stock_moves import StockMoves
from stock_repair.repair import Repair

SERVICE = "stock-repair"
FUNCTION = "StockRepairFunction"


class RepairHandler(FunctionHandler):
    def __init__(self, settings: Settings):
        logger = get_logger(SERVICE)
        with aws.acting_as(FUNCTION):
            self.orders = OrderRepository(settings)
            self.inventory = StockMoves.invoking(settings)
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


def create(settings: Settings) -> RepairHandler:
    return RepairHandler(settings)


# No `rehearse`: nobody waits on this function's first run (a schedule), so its init
# stays short and that run opens its own connections (common.lambda_init.start).
