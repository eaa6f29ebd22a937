"""Publishing PedidoAprobadoEvent: an asynchronous invoke of the order-events function.

InvocationType=Event returns as soon as Lambda has queued the event, so the order's
HTTP response never waits for the listener. Locally AWS_ENDPOINT_URL_LAMBDA points at
the local stack's invoke endpoint, which runs the same handler in the background.
"""

from botocore.config import Config

from common import aws, jsonio
from common.events import ORDER_APPROVED
from common.settings import Settings

# Publishing must stay cheap for the request that does it: fail fast, never retry inline.
_CLIENT_CONFIG = Config(connect_timeout=1, read_timeout=2, retries={"total_max_attempts": 1})


class LambdaPublisher:
    def __init__(self, settings: Settings, logger, client=None):
        self._function = settings.order_events_function
        self._logger = logger
        # Built here, at init; botocore reads AWS_ENDPOINT_URL_LAMBDA now, not per call.
        self._client = client or aws.client("lambda", settings, _CLIENT_CONFIG)

    def publish(self, payload: dict) -> None:
        """Queue the event. A failure never fails the order, which is already saved: it is
        logged, as a line of its own beside the request's, with the same correlation id."""
        try:
            self._client.invoke(FunctionName=self._function, InvocationType="Event",
                                Payload=jsonio.dumps(payload).encode("utf-8"))
        except Exception:
            self._logger.exception(f"{ORDER_APPROVED} not published", extra={"payload": payload})
