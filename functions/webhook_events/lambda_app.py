"""Lambda entry point of the webhooks' events function, fed by the streams of the
orders, shipments and products tables (SAM Handler: webhook_events.lambda_app.handler).

Everything below runs once, in Lambda's init, before the first request; every function's
entry point reads the same (common.platform.lambda_init.start).
"""

from common.platform.lambda_init import collector_paused, start

with collector_paused():
    from webhook_events import wiring

    handler = start(wiring)
