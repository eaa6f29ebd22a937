"""What the gateway's authorizer decides for a bearer token.

The Lambda authorizer (lambda_app.py) and the local gateway both call `authorize`, so
local and cloud decide alike.
"""

from authorizer.claims import InvalidToken, Verifier, token_in


class Unauthorized(Exception):
    """API Gateway answers 401 only when the authorizer fails with exactly "Unauthorized";
    a Deny policy would give 403, which this API never uses for a bad token."""

    def __init__(self, reason: str):
        super().__init__("Unauthorized")
        self.reason = reason


def authorize(authorization: str | None, method_arn: str, verify: Verifier) -> dict:
    """An Allow policy for a token `verify` accepts, its caller (role, user id) in the
    context API Gateway hands the functions; otherwise Unauthorized, with the reason for
    logs."""
    try:
        caller = verify(token_in(authorization))
    except InvalidToken as exc:
        raise Unauthorized(str(exc)) from None
    return {
        "principalId": caller.sub,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Action": "execute-api:Invoke",
                    "Effect": "Allow",
                    "Resource": [_whole_api(method_arn)],
                }
            ],
        },
        "context": caller.context(),
    }


def _whole_api(method_arn: str) -> str:
    """arn:...:api-id/stage/* - API Gateway caches the policy per token, so it must
    cover every route, not only the one that happened to be called first."""
    parts = method_arn.split("/")
    return f"{parts[0]}/{parts[1]}/*" if len(parts) > 2 else method_arn
