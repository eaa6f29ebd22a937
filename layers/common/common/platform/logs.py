"""Structured logs: one JSON object per line, through Powertools' Logger.

Each entry point wraps its invocations in `inject_lambda_context` (with clear_state), so
every line of an invocation carries the Lambda request id and the correlation id, and
none of the next's; the serializer is ours so that money in a logged payload keeps its
exact digits, and so that no line ever holds a person's data: every personal field
(common.platform.personal) is written as "[redacted]", wherever it is in the line, so erasing a
person never has to chase the logs (docs/personal-data.md).
"""

from aws_lambda_powertools import Logger

from common.platform import jsonio
from common.platform.personal import redacted


def _line(fields: dict) -> str:
    return jsonio.dumps(redacted(fields))


def get_logger(service: str) -> Logger:
    return Logger(service=service, json_serializer=_line)
