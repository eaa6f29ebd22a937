"""The platform on one laptop: the template run on 127.0.0.1 as AWS runs it."""

# Dummy credentials and a region: boto must never go looking for real AWS ones here.
LOCAL_AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_SESSION_TOKEN": "local",
    "AWS_DEFAULT_REGION": "us-east-1",
}
