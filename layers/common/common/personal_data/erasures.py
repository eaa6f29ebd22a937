"""An accepted erasure, as the users function (which accepts it) and the erasure function
(which carries it out) both know it: its progress as its request's item records it, and
the erasure queue (SQS), where it waits for the erasure function, off the request's path
(docs/personal-data.md). A message names the erasure's request; the function reads its
progress there, so a message that comes twice, or after a crash, carries on from where
the erasure is."""

import json
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from common.platform import aws, personal
from common.platform.errors import Unavailable
from common.platform.settings import Cloud, Erasures

RETRY_AFTER_SECONDS = 5
# An accepted erasure's progress (the record of its request).
IN_PROGRESS, COMPLETED = "EN_CURSO", personal.ERASURE_DONE


@dataclass(frozen=True, kw_only=True)
class Erasure:
    """An accepted erasure's progress: the request that records it, whose data it
    erases, the step it is at and where in it, and the account it deletes last."""

    request_id: int
    user_id: int
    estado: str
    paso: str | None = None
    desde: int = 0
    cuenta: str | None = None


class ErasureQueue:
    def __init__(self, cloud: Cloud, erasures: Erasures, client: Any = None):
        # Built at init, as the acting function's (common.platform.aws).
        self._sqs = client or aws.sqs(cloud)
        self._url = erasures.erasure_queue

    def send(self, request_id: int) -> None:
        try:
            self._sqs.send_message(
                QueueUrl=self._url, MessageBody=json.dumps({"solicitud": request_id})
            )
        except (ClientError, BotoCoreError) as exc:
            raise Unavailable(
                "ERASURE_UNAVAILABLE",
                f"The erasure could not be started ({type(exc).__name__}); the account's "
                "sessions are ended: send the request again",
                retry_after_seconds=RETRY_AFTER_SECONDS,
            ) from None


def request_of(body: str) -> int:
    """The erasure's request a message names; ValueError for anything else."""
    try:
        return int(json.loads(body)["solicitud"])
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not an erasure message: {exc!r}") from None
