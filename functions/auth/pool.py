"""The identity provider of sign-in: a Cognito user pool (on AWS the template's; locally
the emulator's, made by `make run` from the same template), through its API.

Every answer the pool can give is turned into one of the platform's: what is about the
request (a taken email, a password or an email the pool refuses, wrong credentials) is
the client's 4xx; anything else (the pool unreachable, throttled, failing, or answering
in a way this code does not expect) is 503 with Retry-After, never a 500.
"""

import contextlib
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from auth.rules import Credentials, Registration, weak_password_message
from auth.service import WrongCredentials
from common.identity.attempts import FIRST_LOCK_SECONDS, pool_locked, too_many
from common.platform.errors import Conflict, Unauthenticated, Unavailable, invalid_field

USER_ID_ATTRIBUTE = "custom:userId"
# The pool's answers about the credentials themselves; every one is the same 401.
_REFUSED = {
    "NotAuthorizedException",
    "UserNotFoundException",
    "UserNotConfirmedException",
    "PasswordResetRequiredException",
    "InvalidParameterException",
}
RETRY_AFTER_SECONDS = 5


def unavailable(why: str) -> Unavailable:
    return Unavailable(
        "SIGN_IN_UNAVAILABLE",
        f"Signing in is unavailable at the moment ({why}): try again in a few seconds",
        retry_after_seconds=RETRY_AFTER_SECONDS,
    )


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


class CognitoPool:
    """`client`: a cognito-idp client (common.platform.aws.cognito)."""

    def __init__(self, client: Any, pool_id: str, client_id: str):
        self._cognito, self._pool_id, self._client_id = client, pool_id, client_id

    def create_customer(self, registration: Registration, user_id: int) -> str:
        # Not marked verified: registering proves nothing about the email (the pool
        # signs in by it all the same: its usernames are emails).
        attributes = [
            {"Name": "email", "Value": registration.email},
            {"Name": USER_ID_ATTRIBUTE, "Value": str(user_id)},
        ]
        if registration.nombre:
            attributes.append({"Name": "name", "Value": registration.nombre})
        made = self._call(
            "AdminCreateUser",
            UserPoolId=self._pool_id,
            Username=registration.email,
            UserAttributes=attributes,
            MessageAction="SUPPRESS",  # the platform answers; no invitation mail
        )
        try:
            self._call(
                "AdminSetUserPassword",
                UserPoolId=self._pool_id,
                Username=registration.email,
                Password=registration.password,
                Permanent=True,
            )
        except Exception:
            # An account without its password could never sign in, and would hold the
            # email: it goes, so the same registration can be sent again.
            self._remove(registration.email)
            raise
        # The pool's name for the account (its sign-in is by email: a generated id).
        return str(made["User"]["Username"])

    def sign_in(self, credentials: Credentials) -> str:
        # The administrator's password flow (IAM-signed: this function's role alone may):
        # the pool's public client allows no password flow of its own, so every sign-in
        # with a password passes the API's limits (docs/identity.md).
        try:
            answer = self._cognito.admin_initiate_auth(
                UserPoolId=self._pool_id,
                ClientId=self._client_id,
                AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                AuthParameters={"USERNAME": credentials.email, "PASSWORD": credentials.password},
            )
        except ClientError as exc:
            if pool_locked(_code(exc), _message(exc)):
                raise too_many(FIRST_LOCK_SECONDS) from None
            if _code(exc) in _REFUSED:
                raise WrongCredentials() from None
            raise _failure(exc) from None
        except BotoCoreError as exc:
            raise unavailable(type(exc).__name__) from None
        token = (answer.get("AuthenticationResult") or {}).get("AccessToken")
        if isinstance(token, str) and token:
            return token
        if answer.get("ChallengeName") == "NEW_PASSWORD_REQUIRED":
            # Only the right password gets here: nothing is told to anyone else.
            raise Unauthenticated(
                "PASSWORD_CHANGE_REQUIRED",
                "This account has a temporary password: an operator must set its password",
                details=[],
            )
        raise unavailable(f"the pool asked for {answer.get('ChallengeName') or 'nothing'}")

    def _call(self, operation: str, **parameters: Any) -> dict:
        method = getattr(self._cognito, _snake(operation))
        try:
            return method(**parameters)
        except ClientError as exc:
            code = _code(exc)
            if code == "UsernameExistsException" or code == "AliasExistsException":
                raise Conflict(
                    "EMAIL_TAKEN", "An account with this email exists", details=[]
                ) from None
            if code == "InvalidPasswordException":
                raise invalid_field("password", weak_password_message()) from None
            if code == "InvalidParameterException":
                raise invalid_field("email", _message(exc)) from None
            raise _failure(exc) from None
        except BotoCoreError as exc:
            raise unavailable(type(exc).__name__) from None

    def remove_customer(self, email: str) -> None:
        self._remove(email)

    def _remove(self, email: str) -> None:
        # The registration's own failure is the answer; an account left behind by this
        # failing too holds its email until an operator deletes it.
        with contextlib.suppress(ClientError, BotoCoreError):
            self._cognito.admin_delete_user(UserPoolId=self._pool_id, Username=email)


def _failure(error: ClientError) -> Unavailable:
    return unavailable(f"the user pool answered {_code(error) or 'an error'}")


def _message(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Message") or "is refused by the user pool")


def _snake(operation: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in operation).lstrip("_")
