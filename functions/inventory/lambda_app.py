"""Lambda entry point of the inventory function (SAM Handler: inventory.lambda_app.handler).

Everything below runs once, in Lambda's init, before the first request; every function's
entry point reads the same (common.platform.lambda_init.start).
"""

from common.platform.lambda_init import collector_paused, start

with collector_paused():
    from inventory import wiring

    handler = start(wiring)
