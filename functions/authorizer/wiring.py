"""What the authorizer function is made of: the verifier the settings call for (the shared
key, or an OIDC issuer), and the policy it answers API Gateway with."""

from typing import Any

from authorizer.policy import Unauthorized, authorize
from authorizer.tokens import verifier_for
from common.platform import aws, metrics
from common.platform.handlers import FunctionHandler
from common.platform.logs import get_logger
from common.platform.settings import Cloud, Pool, Tokens

SERVICE = "authorizer"
FUNCTION = "AuthorizerFunction"


class Authorizer(FunctionHandler):
    def __init__(self, cloud: Cloud, tokens: Tokens, pool: Pool):
        with aws.acting_as(FUNCTION):
            self.verify = verifier_for(cloud, tokens, pool)
        super().__init__(FUNCTION, get_logger(SERVICE), self._handle)

    def _handle(self, event: dict, context: Any) -> dict:
        try:
            return authorize(
                event.get("authorizationToken"), event.get("methodArn", ""), self.verify
            )
        except Unauthorized as exc:
            self.logger.info("token rejected", extra={"reason": exc.reason})
            # Lambda counts the raise as an error: this count tells refusals apart (alarms).
            metrics.count(metrics.TOKENS_REJECTED, service=SERVICE)
            raise


def create(cloud: Cloud, tokens: Tokens, pool: Pool) -> Authorizer:
    return Authorizer(cloud, tokens, pool)


def rehearse(handler: Authorizer) -> None:
    """At init: the key read (or the issuer's keys fetched) and a token verified with it."""
    handler.verify.rehearse()
