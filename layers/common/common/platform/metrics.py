"""The platform's CloudWatch metrics, namespace Logistics.

Each figure is one line in CloudWatch's embedded metric format, built by Powertools
(SingleMetric, which checks it against the format) and written when it happens:
CloudWatch turns the function's log lines into metrics, no API call is made, and a line
never mixes the figures of two requests (the local stack serves many at once in one
process). Each carries its dimensions: the service that
counts it, and what splits it (a refusal's reason, an idempotency scope).
"""

import json
import sys

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.base import SingleMetric

NAMESPACE = "Logistics"

# The names, one place each: the template's alarms and dashboard use them too.
ORDERS_PLACED = "OrdersPlaced"
ORDERS_REFUSED = "OrdersRefused"  # dimension reason: the refusal's error code
STOCK_CHECK_LATENCY = "StockCheckLatency"
BREAKER_OPENED = "BreakerOpened"
EVENTS_FORWARDED = "EventsForwarded"
EVENTS_FAILED = "EventsFailed"  # the listener could not forward (Lambda retries it)
EVENTS_NOT_PUBLISHED = "EventsNotPublished"  # left pending for the sweep
EVENTS_REPUBLISHED = "EventsRepublished"
IDEMPOTENT_REPLAYS = "IdempotentReplays"  # dimension scope: a route, or order-events
TOKENS_REJECTED = "TokensRejected"  # the authorizer's refusals (Lambda counts them as errors)
# Stock counters the invariant check found differing from the ledger (and put right).
STOCK_DRIFT = "StockDrift"
# Webhooks: events sent to endpoints (one per endpoint subscribed), deliveries that got a
# 2xx, attempts that did not (retried, or given up), deliveries given up (dead letters).
WEBHOOK_EVENTS_QUEUED = "WebhookEventsQueued"
WEBHOOKS_DELIVERED = "WebhooksDelivered"
WEBHOOK_ATTEMPTS_FAILED = "WebhookAttemptsFailed"
WEBHOOKS_DEAD_LETTERED = "WebhooksDeadLettered"
# Not written by the code: the template counts each API's 429s from its access log.
THROTTLED_REQUESTS = "ThrottledRequests"
ERASURES_REQUEUED = "ErasuresRequeued"  # erasures the sweep found stuck and sent again


def count(name: str, value: int = 1, *, service: str, **dimensions: str) -> None:
    _emit(name, MetricUnit.Count, value, {"service": service, **dimensions})


def milliseconds(name: str, value: float, *, service: str) -> None:
    _emit(name, MetricUnit.Milliseconds, round(value, 2), {"service": service})


def _emit(name: str, unit: MetricUnit, value: float, dimensions: dict[str, str]) -> None:
    # The service is always given: without one Powertools would add its own (from
    # POWERTOOLS_SERVICE_NAME), and the alarms' and dashboard's dimensions would miss it.
    metric = SingleMetric(namespace=NAMESPACE)
    metric.add_metric(name=name, unit=unit, value=value)
    for key, item in dimensions.items():
        metric.add_dimension(name=key, value=item)
    line = json.dumps(metric.serialize_metric_set(), separators=(",", ":"))
    # One write, as the log's handler does: print() writes the line and its newline apart,
    # and another thread's log line could land between them.
    sys.stdout.write(line + "\n")
