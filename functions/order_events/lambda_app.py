"""Lambda entry point of the order-events listener (SAM Handler:
order_events.lambda_app.handler). It runs once, in Lambda's init, before the first event."""

from common.logs import get_logger
from common.settings import Settings
from order_events.listener import SERVICE, handler_for

handler = handler_for(Settings.load(), get_logger(SERVICE))
