"""Lambda entry point of the token-claims trigger (SAM Handler: token_claims.lambda_app.handler).

Everything below runs once, in Lambda's init, before the first request; every function's
entry point reads the same (common.platform.lambda_init.start).
"""

from common.platform.lambda_init import collector_paused, start

with collector_paused():
    from token_claims import wiring

    handler = start(wiring)
