"""Talking to a running local stack over HTTP, as a user of `make run` would."""

import subprocess

import requests

from infra.local.process import ROOT, StackProcess


def token() -> str:
    """A token from `make -s token`, the command the README tells people to use."""
    result = subprocess.run(["make", "-s", "token"], cwd=ROOT, capture_output=True,
                            text=True, check=True, timeout=120)
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    return lines[0]


class Client:
    """requests against one running stack, with the bearer token unless told otherwise."""

    def __init__(self, stack: StackProcess, bearer: str):
        self.stack = stack
        self.bearer = bearer

    def gateway(self, method: str, path: str, *, auth: bool = True, **kw):
        headers = kw.pop("headers", {})
        if auth:
            headers.setdefault("Authorization", f"Bearer {self.bearer}")
        return requests.request(method, self.stack.gateway + path, headers=headers,
                                timeout=30, **kw)

    def notify(self, method: str, path: str, **kw):
        return requests.request(method, self.stack.notifications + path, timeout=30, **kw)
