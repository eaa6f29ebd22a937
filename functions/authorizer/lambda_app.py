"""Lambda entry point of the TOKEN authorizer (SAM Handler: authorizer.lambda_app.handler).

The module body runs once, in Lambda's init, before the first request.
"""

from common.lambda_init import collector_paused, warm_up

with collector_paused():
    from authorizer.policy import Unauthorized, authorize
    from authorizer.tokens import verifier_for
    from common import metrics
    from common.logs import get_logger
    from common.settings import Settings
    from common.tracing import tracer

    settings = Settings.load()
    logger = get_logger("authorizer")
    verify = verifier_for(settings)
    warm_up(verify.rehearse, logger)


@tracer.capture_lambda_handler(capture_response=False)
@logger.inject_lambda_context(clear_state=True)
def handler(event, context):
    try:
        return authorize(event.get("authorizationToken"), event.get("methodArn", ""), verify)
    except Unauthorized as exc:
        logger.info("token rejected", extra={"reason": exc.reason})
        # Lambda counts the raise as an error: this count tells refusals apart (alarms).
        metrics.count(metrics.TOKENS_REJECTED, service="authorizer")
        raise
