"""Lambda entry point of the notification function (SAM Handler:
notifications.lambda_app.app). It runs once, in Lambda's init, before the first request."""

from common.settings import Settings
from notifications.wiring import app_for

app = app_for(Settings.load())
