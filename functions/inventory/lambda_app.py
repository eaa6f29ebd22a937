"""Lambda entry point of the inventory function (SAM Handler: inventory.lambda_app.app).

Everything below runs once, in Lambda's init, before the first request.
"""

from common.http import create_app
from common.settings import Settings
from inventory.wiring import routes_for

settings = Settings.load()
app = create_app("inventory", settings, routes_for(settings))
