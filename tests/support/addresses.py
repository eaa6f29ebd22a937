"""Requests from a client address of the test's choosing: any 127.x.y.z is this machine,
so a test can be as many clients as it needs to the local gateway, which takes the
peer's address for the client's, as API Gateway does (`sourceIp`)."""

import itertools
import threading

import requests
from requests.adapters import HTTPAdapter

_numbers = itertools.count(1)
_lock = threading.Lock()


class _FromAddress(HTTPAdapter):
    def __init__(self, address: str):
        self._address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self._address, 0)
        super().init_poolmanager(*args, **kwargs)


def client_at(address: str) -> requests.Session:
    """A session whose requests come from `address` (a loopback one: 127.0.0.2, ...)."""
    session = requests.Session()
    adapter = _FromAddress(address)
    session.mount("http://", adapter)
    return session


def new_address() -> str:
    """A loopback address no other call of this process has had (127.1.0.1, 127.1.0.2,
    ...): a client of its own."""
    with _lock:
        n = next(_numbers)
    return f"127.{1 + n // 65025}.{n // 255 % 255}.{1 + n % 255}"
