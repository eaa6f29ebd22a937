"""Lambda entry point of the orders function (SAM Handler: orders.lambda_app.app)."""

from common.http import create_app
from orders.routes import bp

app = create_app("orders", bp)
