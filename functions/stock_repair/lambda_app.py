"""Lambda entry point of the stock repair, run on a schedule: it reconciles the units the
inventory holds with the orders' statuses (SAM Handler: stock_repair.lambda_app.handler).

Everything below runs once, in Lambda's init, before the first request; every function's
entry point reads the same (common.platform.lambda_init.start).
"""

from common.platform.lambda_init import collector_paused, start

with collector_paused():
    from stock_repair import wiring

    handler = start(wiring)
