"""Who is calling: an operator or a customer (docs/api.md#who-may-do-what).

The gateway's authorizer decides it from the bearer token and hands it to the functions
in API Gateway's authorizer context; nothing about it is ever read from the request's
body. Each service's use cases decide, from the Caller, what it may do.
"""

from dataclasses import dataclass

from common.platform.errors import Forbidden

OPERATOR = "operator"
CUSTOMER = "customer"
ROLES = (OPERATOR, CUSTOMER)  # what a token may carry (the authorizer's)
# One service asking another to do what only services do (the orders service moving an
# order's stock): never a token's, only a direct invoke's, which IAM lets one function
# make of another (common.http.service_calls).
SERVICE = "service"


@dataclass(frozen=True)
class Caller:
    """Who made a request: the token's subject and role (and a customer's userId)."""

    sub: str
    role: str
    user_id: int | None = None  # a customer's: the userId of the orders that are theirs
    # A user pool token's account (its username in the pool): whose sessions an erasure
    # of `me` ends, whatever the userId's claim names.
    username: str | None = None

    @property
    def is_operator(self) -> bool:
        return self.role == OPERATOR

    @property
    def is_service(self) -> bool:
        return self.role == SERVICE

    def owns(self, user_id: int | None) -> bool:
        """Whether something of `user_id` (an order, a shipment's order) is this caller's
        own: an operator's is everything, a customer's only their own."""
        return self.is_operator or (user_id is not None and user_id == self.user_id)

    def context(self) -> dict[str, str]:
        """As API Gateway passes an authorizer's context to a function: strings only."""
        context = {"sub": self.sub, "role": self.role}
        if self.user_id is not None:
            context["userId"] = str(self.user_id)
        if self.username is not None:
            context["username"] = self.username
        return context

    @classmethod
    def from_context(cls, context: dict | None) -> "Caller":
        """The caller of a request, from the authorizer's context of its event. Our
        authorizer refuses (401) any token without a known role, or a customer's without
        a user id; an event that carries one anyway may do nothing (403)."""
        context = context or {}
        sub = str(context.get("sub") or context.get("principalId") or "")
        role = context.get("role")
        raw_user = context.get("userId")
        try:
            user_id = int(raw_user) if raw_user not in (None, "") else None
        except (TypeError, ValueError):
            user_id = None
        if role not in (*ROLES, SERVICE) or (role == CUSTOMER and user_id is None):
            raise Forbidden("The caller has no role this platform knows")
        username = context.get("username")
        return cls(sub, role, user_id, str(username) if username else None)


def require_operator(caller: Caller, action: str) -> None:
    """Only operators may do `action` (e.g. "create products")."""
    if not caller.is_operator:
        raise Forbidden(f"Only operators may {action}")


def require_service(caller: Caller, action: str) -> None:
    """Only another service of the platform may do `action` (e.g. "move an order's
    stock"), through a direct invoke: no token can."""
    if not caller.is_service:
        raise Forbidden(f"Only the platform's services may {action}")


# The platform's own calls (a function warming up at init): an operator's rights.
SYSTEM = Caller("platform", OPERATOR)


def service_caller(name: str) -> Caller:
    """The caller a service's direct invoke of another carries (`name`: the asking one)."""
    return Caller(name, SERVICE)
