"""Lambda entry point of the late check, run every minute: shipments past their estimate
and not delivered are marked late, once each, which makes their `envio.atrasado`
(SAM Handler: shipping.late_app.handler).

Everything below runs once, in Lambda's init; every function's entry point reads the same
(common.platform.lambda_init.start). No warm-up: nobody waits on a schedule.
"""

from common.platform.lambda_init import collector_paused, start

with collector_paused():
    from shipping import wiring

    handler = start(wiring.LATE)
