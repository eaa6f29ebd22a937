"""Lambda entry point of the dashboard's figures function, fed by the streams of the
products, orders and shipments tables (SAM Handler: dashboard_figures.lambda_app.handler).

Everything below runs once, in Lambda's init, before the first request; every function's
entry point reads the same (common.platform.lambda_init.start).
"""

from common.platform.lambda_init import collector_paused, start

with collector_paused():
    from dashboard_figures import wiring

    handler = start(wiring)
