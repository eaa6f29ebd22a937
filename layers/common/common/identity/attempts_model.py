"""The table of sign-in attempts and registrations: one item per thing counted (the
SHA-256 of an email and a client address, or of an address that registers), deleted by
DynamoDB's TTL an hour after its last attempt
(common.identity.attempts.FORGET_AFTER_SECONDS), though
every read compares that time with the clock itself (the TTL deletes late).

The key's attribute keeps its first name, `emailHash` (a table's key cannot be renamed);
it holds the hash of whatever an item counts.

The sign-in function owns the table; the model is the layer's because the users
function counts its password checks there too, as sign-ins (common.identity.attempts)."""

from pynamodb.attributes import ListAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from common.storage.tables import model_meta


class AttemptsModel(Model):
    Meta = model_meta("SignInAttemptsTable")

    key = UnicodeAttribute(hash_key=True, attr_name="emailHash")
    # Sign-ins: how many since the last success; registrations: how many times the item
    # was written (what each write's condition compares).
    tries = NumberAttribute(default=0, attr_name="attempts")
    locked_until = NumberAttribute(null=True, attr_name="lockedUntil")
    # Registrations: when each account still in the window was made (epoch seconds).
    made = ListAttribute(of=NumberAttribute, null=True, attr_name="made")
    expires_at = NumberAttribute(attr_name="expiresAt")
