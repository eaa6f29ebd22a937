"""The table of sign-in attempts: one item per email (its hash), deleted by DynamoDB's
TTL an hour after its last attempt (auth.rules.FORGET_AFTER_SECONDS)."""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from common.storage import model_meta


class AttemptsModel(Model):
    Meta = model_meta("SignInAttemptsTable")

    email_hash = UnicodeAttribute(hash_key=True, attr_name="emailHash")
    tries = NumberAttribute(default=0, attr_name="attempts")
    locked_until = NumberAttribute(null=True, attr_name="lockedUntil")
    expires_at = NumberAttribute(attr_name="expiresAt")
