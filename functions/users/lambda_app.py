"""Lambda entry point of the users function (SAM Handler: users.lambda_app.handler).

Everything below runs once, in Lambda's init, before the first request; every function's
entry point reads the same (common.platform.lambda_init.start).
"""

from common.platform.lambda_init import collector_paused, start

with collector_paused():
    from users import wiring

    handler = start(wiring)
