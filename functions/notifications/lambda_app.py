"""Lambda entry point of the notification function (SAM Handler:
notifications.lambda_app.app). It runs once, in Lambda's init, before the first request."""

from common.lambda_init import collector_paused, warm_up

with collector_paused():
    from common.settings import Settings
    from notifications.wiring import app_for, rehearse

    app = app_for(Settings.load())
    warm_up(lambda: rehearse(app), app.logger)
