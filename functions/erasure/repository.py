"""The copies of a person's data the erasure finds beyond their orders and shipments
(common.erasure_repository reads and strips those): each event's delivery to an endpoint, kept
for re-sends (WebhookDeliveriesTable, the webhooks functions' table), found by the
person's index and its body stripped. The only erasure module that knows DynamoDB."""

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError

from common import aws, personal
from common.settings import Settings

TABLE, INDEX = "WebhookDeliveriesTable", "byUser"


class Deliveries:
    def __init__(self, settings: Settings, client: Any = None):
        self._client = client or aws.dynamodb(settings)
        self._table = settings.table_name(TABLE)

    def of(self, user_id: int) -> Iterator[tuple[int, str]]:
        """The (webhookId, eventId) of each delivery of an event about the person."""
        start: dict | None = None
        while True:
            page = self._client.query(
                TableName=self._table,
                IndexName=INDEX,
                KeyConditionExpression="userId = :user",
                ExpressionAttributeValues={":user": {"N": str(user_id)}},
                **({"ExclusiveStartKey": start} if start else {}),
            )
            for item in page.get("Items", []):
                yield int(item["webhookId"]["N"]), item["eventId"]["S"]
            start = page.get("LastEvaluatedKey")
            if not start:
                return

    def strip(self, webhook_id: int, event_id: str) -> None:
        """The delivery's body without the person's data (common.personal), as every
        later attempt and re-send sends it; on the condition that it is still the body
        read (its only other writes touch its state)."""
        key = {"webhookId": {"N": str(webhook_id)}, "eventId": {"S": event_id}}
        item = self._client.get_item(TableName=self._table, Key=key, ConsistentRead=True)
        body = item.get("Item", {}).get("body", {}).get("S")
        if body is None:
            return  # gone (its 30 days are up)
        stripped = personal.stripped_event(body)
        if stripped == body:
            return
        try:
            self._client.update_item(
                TableName=self._table,
                Key=key,
                UpdateExpression="SET body = :stripped",
                ConditionExpression="body = :read",
                ExpressionAttributeValues={":stripped": {"S": stripped}, ":read": {"S": body}},
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
