"""Lambda entry point of the orders function (SAM Handler: orders.lambda_app.app).

Everything below runs once, in Lambda's init, before the first request.
"""

from common.http import create_app
from common.settings import Settings
from orders.wiring import routes_for

settings = Settings.load()
app = create_app("orders", settings, routes_for(settings))
