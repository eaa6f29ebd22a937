"""Lambda entry point of the webhooks function: the endpoints, their secrets, deliveries
and re-sends (SAM Handler: webhooks.lambda_app.handler).

Everything below runs once, in Lambda's init, before the first request; every function's
entry point reads the same (common.platform.lambda_init.start).
"""

from common.platform.lambda_init import collector_paused, start

with collector_paused():
    from webhooks import wiring

    handler = start(wiring)
