"""Publishing PedidoAprobadoEvent: an asynchronous invoke of the order-events function.

InvocationType=Event returns as soon as Lambda has queued the event, so the order's
HTTP response never waits for the listener. Locally AWS_ENDPOINT_URL_LAMBDA points at
the local stack's invoke endpoint, which runs the same handler in the background.
"""

from common import aws, jsonio
from common.events import ORDER_APPROVED
from common.settings import Settings


class LambdaPublisher:
    def __init__(self, settings: Settings, logger, client=None):
        self._function = settings.order_events_function
        self._logger = logger
        # The process's client, built at init: publishing fails fast, never retries inline.
        self._client = client or aws.lambda_client(settings)

    def rehearse(self) -> None:
        """A DryRun invoke: checks the permission and opens the connection, runs nothing."""
        self._client.invoke(FunctionName=self._function, InvocationType="DryRun")

    def publish(self, payload: dict) -> None:
        """Queue the event. A failure never fails the order, which is already saved: it is
        logged, as a line of its own beside the request's, with the same correlation id."""
        try:
            self._client.invoke(FunctionName=self._function, InvocationType="Event",
                                Payload=jsonio.dumps(payload).encode("utf-8"))
        except Exception:
            self._logger.exception(f"{ORDER_APPROVED} not published", extra={"payload": payload})
