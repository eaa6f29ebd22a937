"""What a user pool's access token must carry for the gateway (docs/operations.md#identity):
the customer's userId, from the user's `custom:userId` attribute. Cognito puts group
membership (`cognito:groups`: "operators") there itself, but no user attribute: this is the
pre token generation trigger (event version 2) that adds it."""

USER_ID_ATTRIBUTE = "custom:userId"
USER_ID_CLAIM = "userId"


def with_user_id(event: dict) -> dict:
    """The trigger's event with its response set: the access token gains `userId` when the
    user has one (an operator may have none)."""
    attributes = (event.get("request") or {}).get("userAttributes") or {}
    user_id = attributes.get(USER_ID_ATTRIBUTE)
    claims = {USER_ID_CLAIM: user_id} if user_id else {}
    event.setdefault("response", {})["claimsAndScopeOverrideDetails"] = {
        "accessTokenGeneration": {"claimsToAddOrOverride": claims}
    }
    return event
