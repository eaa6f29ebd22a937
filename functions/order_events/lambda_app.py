"""Lambda entry point of the order-events listener (SAM Handler:
order_events.lambda_app.handler). It runs once, in Lambda's init, before the first event."""

from common.lambda_init import collector_paused, warm_up

with collector_paused():
    from common.logs import get_logger
    from common.settings import Settings
    from order_events.listener import SERVICE, handler_for, rehearse

    settings = Settings.load()
    logger = get_logger(SERVICE)
    handler = handler_for(settings, logger)
    warm_up(lambda: rehearse(settings), logger)
