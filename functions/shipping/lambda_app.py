"""Lambda entry point of the shipping function (SAM Handler: shipping.lambda_app.app)."""

from common.http import create_app
from shipping.routes import bp

app = create_app("shipping", bp)
