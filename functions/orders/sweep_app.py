"""Lambda entry point of the event sweep (SAM Handler: orders.sweep_app.handler), run on a
schedule: it publishes the PedidoAprobadoEvent of every order whose publish failed.
The module body runs once, in Lambda's init."""

from common.lambda_init import collector_paused, warm_up

with collector_paused():
    from common.logs import get_logger
    from common.settings import Settings
    from common.tracing import tracer
    from orders.sweep import Sweep

    logger = get_logger("event-sweep")
    sweep = Sweep(Settings.load(), logger)
    warm_up(sweep.rehearse, logger)


@tracer.capture_lambda_handler(capture_response=False)
@logger.inject_lambda_context(clear_state=True)
def handler(event, context):
    return sweep(context)
