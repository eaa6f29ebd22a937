"""Rerunnable benchmark: what the local gateway's throttle (a token bucket per API,
docs/api.md#limits) costs each request, against the same requests unthrottled.

Usage: `make bench-throttle` (or .venv/bin/python bench/throttle.py [--requests N]
[--rounds R]). Each round sends N requests through the local gateway's WSGI app
(infra/local/api_gateway.py) in this process, to one of its fixed pages (so that what is
timed is the gateway's own path, not a function's invocation, which would drown the
bucket), once with a bucket that never runs dry and once without one, alternating which
goes first; it prints the median time a request of each, and their ratio, over R rounds.
"""

import argparse
import io
import logging
import statistics
import time

from infra.api_docs import Page
from infra.local.api_gateway import ApiGateway, api
from infra.local.throttle import TokenBucket

PAGE = "/bench"


def environ() -> dict:
    return {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": PAGE,
        "REQUEST_URI": PAGE,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8001",
        "wsgi.input": io.BytesIO(),
        "HTTP_HOST": "127.0.0.1:8001",
    }


def per_request(app: ApiGateway, count: int) -> float:
    def start_response(status, headers):
        assert status.startswith("200"), status

    started = time.perf_counter()
    for _ in range(count):
        app(environ(), start_response)
    return (time.perf_counter() - started) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    logging.disable(logging.INFO)  # the terminal's speed is not the throttle's
    served = api("NotificationApi", "*")
    pages = {PAGE: Page("text/plain", b"ok")}
    bare = ApiGateway(served, None, "us-east-1", pages)
    throttled = ApiGateway(
        served, None, "us-east-1", pages, throttle=TokenBucket(rate=10**9, burst=10**9)
    )
    per_request(bare, 200), per_request(throttled, 200)  # warm
    with_bucket, without = [], []
    for round_ in range(args.rounds):
        order = [(throttled, with_bucket), (bare, without)]
        for app, times in order if round_ % 2 else reversed(order):
            times.append(per_request(app, args.requests))
    a, b = statistics.median(with_bucket), statistics.median(without)
    print(f"| run | µs a request (median of {args.rounds} x {args.requests}) |")
    print("|---|---|")
    print(f"| without the throttle | {b * 1e6:.1f} |")
    print(f"| with the throttle | {a * 1e6:.1f} |")
    print(f"throttle's cost: {(a - b) * 1e6:+.2f} µs a request, {a / b:.3f}x")


if __name__ == "__main__":
    main()
