"""Lambda entry point of the key-rotation function (SAM Handler:
key_rotation.lambda_app.handler), invoked by Secrets Manager on each key's rotation
schedule. The module body runs once, in Lambda's init."""

from common.lambda_init import collector_paused

with collector_paused():
    from common import aws
    from common.logs import get_logger
    from common.settings import Settings
    from common.tracing import tracer
    from key_rotation.rotation import rotate

    logger = get_logger("key-rotation")
    client = aws.secretsmanager(Settings.load())


@tracer.capture_lambda_handler(capture_response=False)
@logger.inject_lambda_context(clear_state=True)
def handler(event, context):
    rotate(client, event["SecretId"], event["ClientRequestToken"], event["Step"])
    logger.info("key rotation step done", extra={"secret": event["SecretId"],
                                                 "step": event["Step"]})
