"""The platform on one laptop: the template run on 127.0.0.1 as AWS runs it."""

import threading
from typing import Any

# Dummy credentials and a region: boto must never go looking for real AWS ones here.
LOCAL_AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_SESSION_TOKEN": "local",
    "AWS_DEFAULT_REGION": "us-east-1",
}


_session: Any = None
_building = threading.Lock()


def aws_client(service: str, endpoint: str, region: str) -> Any:
    """A client of the local emulator's `service`, from one botocore session of this
    process: each new session (boto3's) reloads the service models and endpoints from
    disk, a tenth of a second of CPU a client at every stack start. Built under a lock
    (building is not thread-safe); a client built is safe to use from any thread."""
    global _session
    import botocore.session

    with _building:
        if _session is None:
            _session = botocore.session.get_session()
        return _session.create_client(
            service,
            endpoint_url=endpoint,
            region_name=region,
            aws_access_key_id=LOCAL_AWS_ENV["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=LOCAL_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
            aws_session_token=LOCAL_AWS_ENV["AWS_SESSION_TOKEN"],
        )
