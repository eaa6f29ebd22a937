"""Structured logs: one JSON object per line, through Powertools' Logger.

Powertools gives Lambda context and a correlation id in every line for free; the
serializer is ours only so that money in a logged payload keeps its exact digits.
"""

from aws_lambda_powertools import Logger

from common import jsonio


def get_logger(service: str) -> Logger:
    return Logger(service=service, json_serializer=jsonio.dumps)
