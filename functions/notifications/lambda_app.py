"""Lambda entry point of the notification function, and the app the local stack serves."""

from common.http import create_app
from notifications.routes import bp

app = create_app("notifications", bp, cors=False)
