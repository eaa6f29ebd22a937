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
from common.platform.settings import Breaker, Cloud, Peers, Repair
from common.stock.client import StockClient
from stock_repair import repair

SERVICE = "stock-repair"
FUNCTION = "StockRepairFunction"


class RepairHandler(FunctionHandler):
    def __init__(self, cloud: Cloud, peers: Peers, breaker: Breaker, grace: Repair):
        logger = get_logger(SERVICE)
        with aws.acting_as(FUNCTION):
            self.orders = OrderReader(cloud)
            self.inventory = inventory(cloud, peers, breaker)
        self.repair = repair.Repair(
            self.orders,
            self.inventory,
            logger,
            grace=timedelta(seconds=grace.stock_repair_grace_seconds),
        )
        super().__init__(FUNCTION, logger, self.run)

    def run(self, event: dict, context: Any) -> dict:
        with aws.acting_as(FUNCTION):
            return self.repair(context)


def inventory(cloud: Cloud, peers: Peers, breaker: Breaker) -> StockClient:
    """The inventory's function (INVENTORY_FUNCTION) invoked, through a breaker kept in
    this process: the repair runs alone, and its openings refuse no order."""
    function = peers.inventory_function
    return StockClient(
        fail_max=breaker.breaker_fail_max,
        reset_seconds=breaker.breaker_reset_seconds,
        service=SERVICE,
        moves=ByInvoke(function, aws.lambda_client(cloud, peers)) if function else None,
        alarmed=False,
    )


def create(cloud: Cloud, peers: Peers, breaker: Breaker, grace: Repair) -> RepairHandler:
    return RepairHandler(cloud, peers, breaker, grace)


# No `rehearse`: nobody waits on this function's first run (a schedule), so its init
# stays short and that run opens its own connections (common.platform.lambda_init.start).
