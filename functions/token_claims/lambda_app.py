"""Lambda entry point of the token-claims function (SAM Handler:
token_claims.lambda_app.handler): Cognito's pre token generation trigger. The module body
runs once, in Lambda's init."""

from common.lambda_init import collector_paused

with collector_paused():
    from common.logs import get_logger
    from token_claims.claims import with_user_id

    logger = get_logger("token-claims")


@logger.inject_lambda_context(clear_state=True)
def handler(event, context):
    return with_user_id(event)
