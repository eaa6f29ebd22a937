"""Lambda entry point of the inventory function (SAM Handler: inventory.lambda_app.app)."""

from common.http import create_app
from inventory.routes import bp

app = create_app("inventory", bp)
