"""What the token-claims function is made of: the pre token generation trigger."""

from typing import Any

from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from token_claims.claims import with_user_id

SERVICE = "token-claims"
FUNCTION = "TokenClaimsFunction"


def create() -> FunctionHandler:
    def add_claims(event: dict, context: Any) -> dict:
        return with_user_id(event)

    return FunctionHandler(FUNCTION, get_logger(SERVICE), add_claims)


def rehearse(handler: FunctionHandler) -> None:
    """The trigger's one path, on a user with no userId: nothing to connect to."""
    with_user_id({"request": {"userAttributes": {}}})
