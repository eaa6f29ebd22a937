"""What a request asks the orders service to do, as one object each (a command): what the
routes read of the request, handed whole through the use case to what it calls, rather
than as a list of arguments each layer names again."""

from dataclasses import dataclass
from datetime import datetime

from common.http.service_calls import OnBehalf
from common.identity.callers import Caller
from orders.rules import NewOrder, OrderRequest


@dataclass(frozen=True, kw_only=True)
class PlaceOrder:
    """Place the order `request` asks for (checked already: orders.service.order_to_place),
    asked at `at` by the caller of `on_behalf`, on whose behalf the inventory is asked for
    its stock."""

    request: OrderRequest
    on_behalf: OnBehalf
    at: datetime

    @property
    def order(self) -> NewOrder:
        return self.request.order


@dataclass(frozen=True, kw_only=True)
class ChangeStatus:
    """Move order `order_id` to `status` (as asked: the use case checks it), asked at `at`
    by `caller`; `request_id` is the request's correlation id, which the inventory's log
    lines of its stock move carry."""

    order_id: int
    status: str | None
    caller: Caller
    at: datetime
    request_id: str | None = None
