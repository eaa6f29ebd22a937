"""A Lambda handler that is not an HTTP app (the authorizer, the event listener, the sweep,
the key rotation, the token trigger), logged and traced as the apps' invocations are:
every line of an invocation carries its Lambda context, and each is an X-Ray trace."""

from collections.abc import Callable
from typing import Any

from common.platform import aws
from common.platform.logs import Logger
from common.platform.tracing import tracer


class FunctionHandler:
    """`handle(event, context)`, run as `function` (its logical id in the template). A
    named function, not a lambda: X-Ray names the invocation's segment after it."""

    def __init__(self, function: str, logger: Logger, handle: Callable[[dict, Any], object]):
        self.function, self.logger = function, logger
        self._invoke = tracer.capture_lambda_handler(capture_response=False)(
            logger.inject_lambda_context(clear_state=True)(handle)
        )

    def __call__(self, event: dict, context: Any) -> Any:
        with aws.acting_as(self.function):
            return self._invoke(event, context)
