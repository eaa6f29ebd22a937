"""`make token`: one line, a bearer token for the local stack, valid 24 hours."""

from authorizer.tokens import issue
from common import config

LOCAL_SUBJECT = "developer@localhost"


def local_token() -> str:
    return issue(LOCAL_SUBJECT, config.jwt_secret())


if __name__ == "__main__":
    print(local_token())
