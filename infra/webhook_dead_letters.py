"""`make webhook-dead-letters` and `make redrive-webhooks`: the webhook deliveries given up
(docs/operations.md#webhooks), and sending them all again once their endpoints are back.

A delivery whose every try failed is recorded `FALLIDO` and its message put on
WebhookDeliveryDeadLetterQueue (by the delivery function; SQS puts one there itself
only when receives keep dying past the attempts). `list` prints each (its endpoint,
event, type and send; never its body). `redrive` sends each again as a re-send of its
event does (`POST .../reenviar`: the same `webhook-id` and body, a new send with its own
retries) and takes it off the queue; one already sent again since, or delivered, is only
taken off, and so is one whose endpoint was deleted or turned off (a 410); one still
being tried, or that cannot be queued now, is kept for the next run. Redriving twice
sends nothing twice: the second finds a newer send.

Without STAGE: the local stack's (`make run` or `make emulators` running, at
DYNAMODB_PORT). With STAGE=dev|prod: that deployed stack's, with your AWS credentials
(its queues, its WebhooksTable and WebhookDeliveriesTable, from the stack's resources).
"""

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import boto3

from common.platform.clock import utcnow
from common.platform.settings import Cloud, Webhooks
from common.webhooks.messages import DeliveryMessage, decoded
from common.webhooks.queue import DeliveryQueue
from common.webhooks.repository import Deliveries, WebhookRepository
from infra.dead_letters import messages
from webhooks import service

QUEUE = "WebhookDeliveryDeadLetterQueue"
# Each dead letter redriven is hidden this long from other readers meanwhile.
HIDE_SECONDS = 60
# (a dead letter) -> what came of sending it again (webhooks.service's outcomes).
Redrive = Callable[[DeliveryMessage], str]


def redrive_all(sqs: Any, url: str, redrive: Redrive) -> Counter:
    """Every dead letter sent again (or dropped, or kept: see the module's text); how
    many had each outcome."""
    outcomes: Counter = Counter()
    for message in messages(sqs, url, HIDE_SECONDS):
        try:
            dead = decoded(message["Body"])
        except ValueError:
            outcomes["kept: not a delivery's message"] += 1
            continue
        outcome = redrive(dead)
        outcomes[outcome] += 1
        if outcome != service.NOT_NOW:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return outcomes


def shown(message: dict) -> str:
    """A dead letter's line: which endpoint, event and send; never its body."""
    try:
        dead = decoded(message["Body"])
    except ValueError:
        return json.dumps({"messageId": message["MessageId"], "error": "not a delivery"})
    fields = {"webhookId": dead.webhook_id, "eventId": dead.event_id, "type": dead.type}
    return json.dumps({**fields, "envio": dead.reenvios})


def _stack(stage: str | None) -> tuple[Any, str, Cloud, Webhooks]:
    """(SQS client, the dead-letter queue's URL, the settings the webhooks' code needs)."""
    if stage is None:
        from infra.local import LOCAL_AWS_ENV
        from infra.local.settings import LocalSettings

        endpoint = f"http://127.0.0.1:{LocalSettings.from_env().dynamodb_port}"
        for key, value in {**LOCAL_AWS_ENV, "AWS_ENDPOINT_URL_DYNAMODB": endpoint}.items():
            os.environ[key] = value  # PynamoDB's models read them (common.storage.tables)
        sqs = boto3.client("sqs", endpoint_url=endpoint)
        return sqs, sqs.get_queue_url(QueueName=QUEUE)["QueueUrl"], Cloud(), Webhooks()
    from infra.tokens import stage_stack

    stack, region = stage_stack(stage)
    resources = boto3.client("cloudformation", region_name=region).describe_stack_resources(
        StackName=stack
    )["StackResources"]
    named = {r["LogicalResourceId"]: r["PhysicalResourceId"] for r in resources}
    cloud = Cloud(
        region=region,
        table_names={
            "WEBHOOKS_TABLE": named["WebhooksTable"],
            "WEBHOOK_DELIVERIES_TABLE": named["WebhookDeliveriesTable"],
        },
    )
    webhooks = Webhooks(webhook_queue=named["WebhookDeliveryQueue"])
    return boto3.client("sqs", region_name=region), named[QUEUE], cloud, webhooks


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("list", "redrive"))
    parser.add_argument("--stage", help="a samconfig.toml environment: dev, prod")
    args = parser.parse_args(argv)
    sqs, url, cloud, webhooks = _stack(args.stage)
    if args.action == "list":
        found = 0
        for message in messages(sqs, url, 0):
            print(shown(message))
            found += 1
        print(f"{found} deliveries waiting in {QUEUE}.", file=sys.stderr)
        return
    endpoints, deliveries = WebhookRepository(cloud), Deliveries(cloud)
    queue = DeliveryQueue(cloud, webhooks, client=sqs)
    outcomes = redrive_all(
        sqs, url, lambda dead: service.redrive(endpoints, deliveries, queue, dead, utcnow())
    )
    for outcome, count in sorted(outcomes.items()):
        print(f"{count} {outcome}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
