"""Lambda entry point of the erasure function (SAM Handler: erasure.lambda_app.handler).

Everything below runs once, in Lambda's init, before the first message; every function's
entry point reads the same (common.platform.lambda_init.start).
"""

from common.platform.lambda_init import collector_paused, start

with collector_paused():
    from erasure import wiring

    handler = start(wiring)
