"""Pointing the functions at an emulator (or at nothing) in the middle of a test."""

from common.platform import aws


def point(monkeypatch, service: str, url: str) -> None:
    """AWS_ENDPOINT_URL_<service> set to `url`, and every client built from now on: the
    functions build each of theirs once, with the endpoint of the moment (common.platform.aws)."""
    monkeypatch.setenv(f"AWS_ENDPOINT_URL_{service}", url)
    aws.forget()
