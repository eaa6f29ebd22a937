"""What the erasure function is made of: the erasure queue's event source mapping hands it
one message at a time, naming an accepted erasure's request; it carries that erasure on
(erasure.saga) until it is done, or until its time nears its end, then goes on in a new
message. A run that fails comes back within seconds; one that crashes, after the queue's
visibility timeout; the tenth failure is a dead letter (an alarm)."""

import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

from common.identity.account_end import ends_for
from common.identity.user_ids import UserIds
from common.personal_data import repository as erasure_repository
from common.personal_data.erasures import ErasureQueue, request_of
from common.personal_data.repository import ORDERS, RETURNS, SHIPMENTS, ErasureProgress
from common.platform import aws, metrics
from common.platform.clock import to_iso, utcnow
from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from common.platform.settings import Cloud, Erasures, Pool
from common.webhooks.repository import Deliveries
from erasure import saga
from erasure.repository import DashboardLists

SERVICE = "erasure"
FUNCTION = "ErasureFunction"
# A run stops between pages with this much of its time left, and carries on in a new
# message (its timeout: infra/template.yaml).
MARGIN_MILLIS = 20_000
# An erasure still in progress this long after its request lost its message: the sweep
# (every 5 minutes: infra/template.yaml) sends it again.
STUCK_SECONDS = 600
# A run that failed comes back after this long, not the queue's visibility timeout.
RETRY_SECONDS = 10
# Writes of a page at once: each waits on the network.
PARALLEL = 16


class ErasureHandler(FunctionHandler):
    def __init__(self, cloud: Cloud, pool: Pool, erasures: Erasures):
        logger = get_logger(SERVICE)
        with aws.acting_as(FUNCTION):
            erasure_repository.bind(cloud)  # the orders' and shipments' models
            self.copies = saga.Copies(
                orders=ORDERS,
                shipments=SHIPMENTS,
                returns=RETURNS,
                deliveries=Deliveries(cloud),
                dashboard=DashboardLists(cloud),
                accounts=ends_for(cloud, pool),
                claims=UserIds.for_function(cloud),
                progress=ErasureProgress(cloud),
                in_parallel=self._in_parallel,
            )
            self.queue = ErasureQueue(cloud, erasures)
            self._sqs, self._url = aws.sqs(cloud), erasures.erasure_queue
        self._pool = ThreadPoolExecutor(PARALLEL, thread_name_prefix="erasure")
        super().__init__(FUNCTION, logger, self.erase_batch)

    def _in_parallel(self, calls: list[Callable[[], None]]) -> None:
        # Each in a copy of this invocation's context: its calls are this function's.
        for done in [self._pool.submit(contextvars.copy_context().run, call) for call in calls]:
            done.result()

    def erase_batch(self, event: dict, context: Any) -> dict:
        if event.get("source") == "aws.events":  # the schedule's: the sweep
            return {"requeued": self.sweep(utcnow())}
        records = event.get("Records") or []
        failed = [record for record in records if not self._erased(record, context)]
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in failed]}

    def _erased(self, record: dict, context: Any) -> bool:
        """One message: True when it is done with (delete it), False to try again."""
        try:
            request_id = request_of(record["body"])
        except ValueError as exc:
            self.logger.error("not an erasure message", extra={"error": str(exc)})
            return False  # on to the dead letters, after its retries
        remaining = getattr(context, "get_remaining_time_in_millis", None)
        try:
            done = saga.run(
                self.copies,
                request_id,
                lambda: remaining is not None and remaining() < MARGIN_MILLIS,
                to_iso(utcnow()),
            )
            if not done:
                self.queue.send(request_id)  # the rest, in a run of its own
        except Exception:
            self.logger.exception("erasure failed, retrying", extra={"solicitud": request_id})
            self._sqs.change_message_visibility(
                QueueUrl=self._url,
                ReceiptHandle=record["receiptHandle"],
                VisibilityTimeout=RETRY_SECONDS,
            )
            return False
        self.logger.info(
            "erasure done" if done else "erasure continues",
            extra={"solicitud": request_id, "done": done},
        )
        return True

    def sweep(self, now: datetime) -> int:
        """Send again each erasure accepted in the last day and still in progress after
        STUCK_SECONDS (its message lost: the queue's send failed after the request's
        revoke), and count them: any is an alarm (ErasuresRequeuedAlarm)."""
        stuck = erasure_repository.stuck_erasures(
            to_iso(now - timedelta(days=1)), to_iso(now - timedelta(seconds=STUCK_SECONDS))
        )
        for request_id in stuck:
            self.queue.send(request_id)
        if stuck:
            self.logger.warning("erasures sent again", extra={"solicitudes": stuck[:20]})
            metrics.count(metrics.ERASURES_REQUEUED, len(stuck), service=SERVICE)
        return len(stuck)


def create(cloud: Cloud, pool: Pool, erasures: Erasures) -> ErasureHandler:
    return ErasureHandler(cloud, pool, erasures)


# No `rehearse`: nobody waits on this function's first run (a queue's message), so its
# init stays short and that run opens its own connections (common.platform.lambda_init.start).
