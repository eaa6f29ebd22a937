"""The API Gateway TOKEN authorizer (SAM Handler: authorizer.handler.handler).

The gateway Chalice app calls `authorize` too, so local and cloud decide alike.
"""

from authorizer.tokens import InvalidToken, bearer_token, verify
from common import config
from common.logs import get_logger

logger = get_logger("authorizer")


def authorize(authorization: str | None, method_arn: str) -> dict:
    """An Allow policy for a valid token; otherwise the exception API Gateway maps to 401.

    API Gateway answers 401 only when the authorizer fails with exactly "Unauthorized";
    a Deny policy would give 403, which this API never uses for a bad token.
    """
    try:
        claims = verify(bearer_token(authorization), config.jwt_secret())
    except InvalidToken as exc:
        logger.info("token rejected", extra={"reason": str(exc)})
        raise Exception("Unauthorized") from None  # noqa: TRY002 - API Gateway's contract
    return {
        "principalId": claims["sub"],
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": "Allow",
                           "Resource": [_whole_api(method_arn)]}],
        },
        "context": {"sub": claims["sub"]},
    }


def _whole_api(method_arn: str) -> str:
    """arn:...:api-id/stage/* - API Gateway caches the policy per token, so it must
    cover every route, not only the one that happened to be called first."""
    parts = method_arn.split("/")
    return f"{parts[0]}/{parts[1]}/*" if len(parts) > 2 else method_arn


def handler(event, context):
    return authorize(event.get("authorizationToken"), event.get("methodArn", ""))
