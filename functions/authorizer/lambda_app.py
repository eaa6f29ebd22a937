"""Lambda entry point of the TOKEN authorizer (SAM Handler: authorizer.lambda_app.handler).

The module body runs once, in Lambda's init, before the first request.
"""

from authorizer.policy import Unauthorized, authorize
from common.logs import get_logger
from common.settings import Settings

settings = Settings.load()
logger = get_logger("authorizer")


@logger.inject_lambda_context(clear_state=True)
def handler(event, context):
    try:
        return authorize(event.get("authorizationToken"), event.get("methodArn", ""),
                         settings.jwt_secret)
    except Unauthorized as exc:
        logger.info("token rejected", extra={"reason": exc.reason})
        raise
