"""Lambda entry point of the orders function (SAM Handler: orders.lambda_app.app).

Everything below runs once, in Lambda's init, before the first request.
"""

from common.lambda_init import collector_paused, warm_up

with collector_paused():
    from common.http import create_app
    from common.settings import Settings
    from orders.wiring import rehearse, routes_for

    settings = Settings.load()
    app = create_app("orders", settings, routes_for(settings))
    warm_up(lambda: rehearse(app, settings), app.logger)
