"""Lambda entry point of the TOKEN authorizer (SAM Handler: authorizer.lambda_app.handler).

The module body runs once, in Lambda's init, before the first request.
"""

from common.lambda_init import collector_paused

with collector_paused():
    import jwt

    from authorizer.policy import Unauthorized, authorize
    from authorizer.tokens import ALGORITHM, verify
    from common.logs import get_logger
    from common.settings import Settings

    settings = Settings.load()
    logger = get_logger("authorizer")
    # The first verification loads what PyJWT loads lazily: done here, not on a request.
    verify(jwt.encode({"sub": "init"}, settings.jwt_secret, algorithm=ALGORITHM),
           settings.jwt_secret)


@logger.inject_lambda_context(clear_state=True)
def handler(event, context):
    try:
        return authorize(event.get("authorizationToken"), event.get("methodArn", ""),
                         settings.jwt_secret)
    except Unauthorized as exc:
        logger.info("token rejected", extra={"reason": exc.reason})
        raise
