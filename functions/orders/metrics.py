"""What operators count of orders, as CloudWatch metrics (service.Outcomes)."""

from common.orders.outbox import SERVICE as SERVICE
from common.platform import metrics


class OrderMetrics:
    def placed(self) -> None:
        metrics.count(metrics.ORDERS_PLACED, service=SERVICE)

    def refused(self, reason: str) -> None:
        metrics.count(metrics.ORDERS_REFUSED, service=SERVICE, reason=reason)
