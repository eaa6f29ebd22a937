"""Lambda entry point of the event sweep, run on a schedule: it publishes the
PedidoAprobadoEvent of every order whose publish failed
(SAM Handler: event_sweep.lambda_app.handler).

Everything below runs once, in Lambda's init, before the first request; every function's
entry point reads the same (common.platform.lambda_init.start).
"""

from common.platform.lambda_init import collector_paused, start

with collector_paused():
    from event_sweep import wiring

    handler = start(wiring)
