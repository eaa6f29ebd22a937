"""What operators count of orders, as CloudWatch metrics (service.Outcomes)."""

from common import metrics
from common.order_outbox import SERVICE as SERVICE


class OrderMetrics:
    def placed(self) -> None:
        metrics.count(metrics.ORDERS_PLACED, service=SERVICE)

    def refused(self, reason: str) -> None:
        metrics.count(metrics.ORDERS_REFUSED, service=SERVICE, reason=reason)
