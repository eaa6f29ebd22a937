"""Structured logs: one JSON object per line, through Powertools' Logger.

Each entry point wraps its invocations in `inject_lambda_context` (with clear_state), so
every line of an invocation carries the Lambda request id and the correlation id, and
none of the next's; the serializer is ours so that money in a logged payload keeps its
exact digits.
"""

from aws_lambda_powertools import Logger

from common import jsonio


def get_logger(service: str) -> Logger:
    return Logger(service=service, json_serializer=jsonio.dumps)
