"""Structured logs: one JSON object per line, through Powertools' Logger.

Each entry point wraps its invocations in `inject_lambda_context`, so every line of an
invocation carries the Lambda request id and the correlation id; the serializer is ours
so that money in a logged payload keeps its exact digits.
"""

from aws_lambda_powertools import Logger
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

from common import jsonio


class _PerInvocationKeys(LambdaPowertoolsFormatter):
    """Keys added during an invocation (Lambda context, correlation id, a route's own)
    are kept per thread.

    Powertools keeps them on the one formatter a logger shares, which is right on
    Lambda (one invocation per process at a time) and wrong on the local stack, where
    one process serves concurrent requests on threads: their ids would mix. The keys
    given at construction (the service) stay shared by every thread.
    """

    def append_keys(self, **additional_keys) -> None:
        self.thread_safe_append_keys(**additional_keys)

    def remove_keys(self, keys) -> None:
        self.thread_safe_remove_keys(keys)

    def get_current_keys(self) -> dict:
        return {**self.log_format, **self.thread_safe_get_current_keys()}


def get_logger(service: str) -> Logger:
    formatter = _PerInvocationKeys(json_serializer=jsonio.dumps, service=service)
    return Logger(service=service, logger_formatter=formatter)
