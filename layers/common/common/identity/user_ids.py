"""Who has used each userId: a claim per id, so that a new account never gets a number
someone else's orders, shipments or account already carry (docs/identity.md#userids).

A userId is claimed by whoever first uses it, each with one conditional write on the id's
item in UserIdsTable (as a sku is claimed in ProductSkusTable):

- an order placed for it (an operator may name any userId, a customer their own): the
  claim is made before the order is saved, so no order ever carries an unclaimed id;
- an account: registering, or `make user`, which names the id (USER_ID) or takes a new
  one; a shipment carries its order's userId, claimed by that order;
- the backfill of data written before claims (infra/user_id_backfill.py: orders,
  shipments and the pool's users), which `make run` runs on the data it restores.

A new account takes the users counter's next id whose claim it can make: the claim is
conditional on there being none, so an id already used is skipped (the counter is
never moved back, and an id is never given twice), whoever wrote it and however many
ask at once.

An account's claim is made in two steps: `pending` while the account is being created in
the user pool, `active` once it is there. An order for an id whose account is pending is
refused (409 USER_ID_REGISTERING, nothing saved): of a registration and an order for the
same new id at once, exactly one wins, and an order that succeeds for an account's id
came after the account existed. A pending claim older than PENDING_SECONDS (a
registration that died half-way) no longer holds orders back.

An account's claim also names the account (`cuenta`: its username in the user pool, an
opaque id that holds nothing of the person), so a userId leads to its account: the
users function answers an operator's request about any userId (docs/personal-data.md).
And an id whose person's data was erased says so (`suprimido`: the erasure's request), so
what still carries that data on its way out (an event to deliver, a create replayed for
its Idempotency-Key) leaves it out from that moment on. The id stays claimed: it is never
given to another account (a person who registers again gets a new one).

UserIds works on a DynamoDB client it is handed (botocore's) and the table's name: the
functions' (`for_function`: the acting function's client, built at its first claim) and
the tools' (`make user`, the backfill: with their own credentials) share one
implementation.
"""

import functools
import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from common.identity.attempts import hashed_key
from common.platform import aws
from common.platform.errors import Conflict, Unavailable
from common.platform.settings import Cloud
from common.platform.validation import normal_email

TABLE = "UserIdsTable"
# claimedBy: who used the id first.
ORDER, ACCOUNT, BACKFILL, ERASURE = "order", "account", "backfill", "erasure"
# account: the state of the account that holds the id (none: no account has it).
PENDING, ACTIVE = "pending", "active"
# How long a registration may take between its claim and the account's creation; past
# it, a pending claim is a registration that died, and orders for the id go through.
PENDING_SECONDS = 60
# Ids a new account tries before it gives up (503): an operator's orders for a run of
# numbers just past the counter are skipped one by one, this many per registration.
NEW_ACCOUNT_TRIES = 100
RETRY_AFTER_SECONDS = 1


def _condition_failed(error: ClientError) -> bool:
    return error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def _key(user_id: int) -> dict:
    return {"userId": {"N": str(user_id)}}


def registering(user_id: int) -> Conflict:
    return Conflict(
        "USER_ID_REGISTERING",
        f"userId {user_id} is being given to a new account at this moment: nothing was "
        "saved; placed again, the order is that account's",
        details=[{"field": "userId", "message": "is being given to a new account"}],
        retry_after_seconds=RETRY_AFTER_SECONDS,
    )


def erased(user_id: int) -> Conflict:
    return Conflict(
        "USER_ID_ERASED",
        f"userId {user_id} belongs to a person whose data was erased: nothing is written "
        "under it any more (a new account gets a new userId)",
        details=[{"field": "userId", "message": "belongs to an erased person"}],
    )


def email_mismatch(user_id: int) -> Conflict:
    return Conflict(
        "USER_EMAIL_MISMATCH",
        f"userId {user_id} has an account with another email: an order for it carries that "
        "account's email; nothing was saved",
        details=[
            {"field": "userId", "message": "has an account with another email"},
            {"field": "userEmail", "message": "is not the email of userId's account"},
        ],
    )


def email_key(email: str) -> str:
    """What a claim keeps of its account's email: a SHA-256 of it normalised, enough to
    tell whether an order's userEmail is the account's, and nothing to read it by."""
    return hashed_key("account-email", normal_email(email))


class UserIdTaken(Exception):
    """An account has (or is being given) this userId."""


class UserIdErased(UserIdTaken):
    """The person who had this userId was erased: it is never given again."""


class UserIds:
    """The claims of one UserIdsTable; `client()` gives the botocore DynamoDB client to
    make them with."""

    def __init__(
        self, client: Callable[[], Any], table: str, clock: Callable[[], float] = time.time
    ):
        self._get_client, self._table, self._clock = client, table, clock

    @classmethod
    def for_function(cls, cloud: Cloud) -> "UserIds":
        """The acting function's: its client is built at the first claim (a function that
        reads orders only never needs one; the orders function has built it at init
        already, for its breaker, so the first order pays nothing for it)."""
        return cls(functools.partial(aws.dynamodb, cloud), cloud.table_name(TABLE))

    @property
    def _client(self) -> Any:
        return self._get_client()

    def _first_use(self, user_id: int, by: str, now: float) -> dict:
        """The update that records the id's first use (kept when it has one)."""
        return {
            "TableName": self._table,
            "Key": _key(user_id),
            "UpdateExpression": "SET claimedBy = if_not_exists(claimedBy, :by), "
            "claimedAt = if_not_exists(claimedAt, :now)",
            "ExpressionAttributeValues": {":by": {"S": by}, ":now": {"N": str(int(now))}},
        }

    def for_order(self, user_id: int, email: str | None = None) -> None:
        """Claim `user_id` for an order about to be saved (a no-op write once claimed),
        in one conditional write: Conflict USER_ID_REGISTERING while an account is being
        made with it, USER_ID_ERASED once its person was erased, USER_EMAIL_MISMATCH when
        its account's email is not `email` (the order's userEmail)."""
        now = self._clock()
        update = self._first_use(user_id, ORDER, now)
        update["ConditionExpression"] = (
            "attribute_not_exists(suprimido) AND (attribute_not_exists(account) "
            "OR account = :active OR pendingSince < :stale)"
        )
        update["ExpressionAttributeValues"].update(
            {":active": {"S": ACTIVE}, ":stale": {"N": str(int(now - PENDING_SECONDS))}}
        )
        if email is not None:
            update["ConditionExpression"] += (
                " AND (attribute_not_exists(emailKey) OR emailKey = :email)"
            )
            update["ExpressionAttributeValues"][":email"] = {"S": email_key(email)}
        try:
            self._client.update_item(**update)
        except ClientError as exc:
            if _condition_failed(exc):
                raise self._refusal(user_id) from None
            raise

    def _refusal(self, user_id: int) -> Conflict:
        """Why an order's claim was refused, as the claim says (read after the refusal:
        erased and a taken email hold for good; anything else is a registration)."""
        claim = self._claim(user_id)
        if "suprimido" in claim:
            return erased(user_id)
        if claim.get("account", {}).get("S") == ACTIVE:
            return email_mismatch(user_id)
        return registering(user_id)

    def used(self, user_id: int, by: str = BACKFILL) -> None:
        """Claim `user_id` as used (the backfill's: an order or shipment already saved)."""
        self._client.update_item(**self._first_use(user_id, by, self._clock()))

    def new_account(self, next_id: Callable[[], int], tries: int = NEW_ACCOUNT_TRIES) -> int:
        """A userId no one has used, from `next_id` (the users counter), claimed for an
        account being made (pending: account_created or account_not_created next)."""
        for _ in range(tries):
            user_id = next_id()
            now = self._clock()
            try:
                self._client.put_item(
                    TableName=self._table,
                    Item={
                        **_key(user_id),
                        "claimedBy": {"S": ACCOUNT},
                        "claimedAt": {"N": str(int(now))},
                        "account": {"S": PENDING},
                        "pendingSince": {"N": str(int(now))},
                    },
                    ConditionExpression="attribute_not_exists(userId)",
                )
                return user_id
            except ClientError as exc:
                if not _condition_failed(exc):
                    raise
        raise Unavailable(
            "USER_IDS_UNAVAILABLE",
            f"No unused userId was found in {tries} tries; try again",
            retry_after_seconds=RETRY_AFTER_SECONDS,
        )

    def for_account(self, user_id: int) -> None:
        """Claim a userId named for an account (`make user USER_ID=`): one that orders or
        shipments carry is theirs to take; UserIdTaken when an account has it."""
        now = self._clock()
        update = self._first_use(user_id, ACCOUNT, now)
        update["UpdateExpression"] += ", account = :pending, pendingSince = :now"
        update["ConditionExpression"] = (
            "attribute_not_exists(account) AND attribute_not_exists(suprimido)"
        )
        update["ExpressionAttributeValues"][":pending"] = {"S": PENDING}
        try:
            self._client.update_item(**update)
        except ClientError as exc:
            if _condition_failed(exc):
                if "suprimido" in self._claim(user_id):
                    raise UserIdErased(user_id) from None
                raise UserIdTaken(user_id) from None
            raise

    def account_created(
        self, user_id: int, username: str | None = None, email: str | None = None
    ) -> None:
        """The account with this id exists (`username`: its name in the pool; `email`:
        its email, which orders for it carry): orders for it go through from now on."""
        self._client.update_item(**self._holder(user_id, username, "SET account = :active", email))

    def email_changed(self, user_id: int, email: str) -> None:
        """The account of `user_id` has a new email: orders for it carry that one now."""
        self._client.update_item(
            TableName=self._table,
            Key=_key(user_id),
            UpdateExpression="SET emailKey = :email",
            ConditionExpression="account = :active",
            ExpressionAttributeValues={
                ":email": {"S": email_key(email)},
                ":active": {"S": ACTIVE},
            },
        )

    def _holder(
        self, user_id: int, username: str | None, update: str, email: str | None = None
    ) -> dict:
        """The update that records the account holding the id, `update` first."""
        values = {":active": {"S": ACTIVE}}
        if username is not None:
            update += ", cuenta = :cuenta"
            values[":cuenta"] = {"S": username}
        if email is not None:
            update += ", emailKey = :email"
            values[":email"] = {"S": email_key(email)}
        return {
            "TableName": self._table,
            "Key": _key(user_id),
            "UpdateExpression": f"{update} REMOVE pendingSince",
            "ExpressionAttributeValues": values,
        }

    def account_not_created(self, user_id: int) -> None:
        """The account could not be made (its email taken, say): the id holds no account,
        and stays claimed, never given again."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=_key(user_id),
                UpdateExpression="REMOVE account, pendingSince",
                ConditionExpression="account = :pending",
                ExpressionAttributeValues={":pending": {"S": PENDING}},
            )
        except ClientError as exc:
            if not _condition_failed(exc):
                raise

    def account_exists(
        self, user_id: int, username: str | None = None, email: str | None = None
    ) -> None:
        """Record an account that already holds this id (the backfill's: the pool's
        users made before claims, or before claims named their account or its email)."""
        first = self._first_use(user_id, BACKFILL, self._clock())
        update = self._holder(
            user_id, username, f"{first['UpdateExpression']}, account = :active", email
        )
        update["ExpressionAttributeValues"].update(first["ExpressionAttributeValues"])
        self._client.update_item(**update)

    def _claim(self, user_id: int) -> dict:
        """The id's claim as stored (consistently), or {} for an id no one has used."""
        answer = self._client.get_item(
            TableName=self._table, Key=_key(user_id), ConsistentRead=True
        )
        return answer.get("Item") or {}

    def account_of(self, user_id: int) -> str | None:
        """The username in the pool of the account that holds `user_id`, if one does."""
        claim = self._claim(user_id)
        if claim.get("account", {}).get("S") != ACTIVE:
            return None
        return claim.get("cuenta", {}).get("S")

    def holds_account(self, user_id: int) -> bool:
        """Whether an account holds (or is being given) `user_id`, named or not."""
        return "account" in self._claim(user_id)

    def erasure_of(self, user_id: int) -> int | None:
        """The request that erased the data of `user_id`'s person, if one did."""
        request = self._claim(user_id).get("suprimido", {}).get("N")
        return int(request) if request is not None else None

    def erased(self, user_id: int | None) -> bool:
        """Whether the data of `user_id`'s person was erased (None: no one's)."""
        return user_id is not None and self.erasure_of(user_id) is not None

    def erasing(self, user_id: int, request_id: int) -> int:
        """Mark `user_id`'s person as erased by request `request_id`, unless an earlier
        request did (one conditional write): returns the request that erases them, this
        one or that earlier one. An id no one had used is claimed by it (never given to
        an account: someone asked that its person be erased)."""
        now = str(int(self._clock()))
        answer = self._client.update_item(
            TableName=self._table,
            Key=_key(user_id),
            UpdateExpression="SET claimedBy = if_not_exists(claimedBy, :by), "
            "claimedAt = if_not_exists(claimedAt, :now), "
            "suprimido = if_not_exists(suprimido, :request), "
            "suprimidoEn = if_not_exists(suprimidoEn, :now)",
            ExpressionAttributeValues={
                ":by": {"S": ERASURE},
                ":now": {"N": now},
                ":request": {"N": str(request_id)},
            },
            ReturnValues="ALL_NEW",
        )
        return int(answer["Attributes"]["suprimido"]["N"])

    def account_gone(self, user_id: int) -> None:
        """The account that held `user_id` left the pool (erased): the id holds none,
        stays claimed, and is never given again."""
        self._client.update_item(
            TableName=self._table,
            Key=_key(user_id),
            UpdateExpression="REMOVE account, cuenta, emailKey, pendingSince",
        )
