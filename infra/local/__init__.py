"""The platform on one laptop: AWS emulated on 127.0.0.1, the apps served over HTTP."""

# Dummy credentials and a region: boto must never go looking for real AWS ones here.
LOCAL_AWS_ENV = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
                 "AWS_SESSION_TOKEN": "local", "AWS_DEFAULT_REGION": "us-east-1"}

# What the apps' process (infra/local/apps.py) writes to the stack once it is serving.
APPS_READY = b"ready\n"
