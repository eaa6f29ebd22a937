"""The webhooks' part of the release (infra/template.yaml), held to the code: each of the
three functions may do exactly what it does, the streams and the queue are wired to them
as the code expects, and what fails ends where operators look."""

from common.platform.env import MAX_VISIBILITY_SECONDS
from common.platform.settings import WEBHOOK_RETRY_SECONDS, Webhooks
from infra import template


def props(name: str) -> dict:
    return template.load()["Resources"][name]["Properties"]


def _name(resource) -> str:
    if resource == "*":
        return "*"
    if "Ref" in resource:
        return resource["Ref"]
    if "Fn::If" in resource:  # a stack with the condition: the resource it names then
        return _name(resource["Fn::If"][1])
    if "Fn::GetAtt" in resource:
        name, attribute = resource["Fn::GetAtt"]
        return name if attribute == "Arn" else f"{name}/{attribute}"
    return resource["Fn::Sub"].replace("${", "").replace(".Arn}", "")


def granted(function: str) -> dict[str, set[str]]:
    """{action: {resource}} of a function's own statements (SAM's templates left out)."""
    found: dict[str, set[str]] = {}
    for policy in props(function).get("Policies", []):
        for statement in policy.get("Statement", []):
            actions, resources = statement["Action"], statement["Resource"]
            for action in actions if isinstance(actions, list) else [actions]:
                for resource in resources if isinstance(resources, list) else [resources]:
                    found.setdefault(action, set()).add(_name(resource))
    return found


def test_the_management_function_touches_endpoints_deliveries_attempts_and_queues_only():
    assert granted("WebhooksFunction") == {
        "dynamodb:GetItem": {"WebhooksTable", "CountersTable", "WebhookDeliveriesTable"},
        "dynamodb:PutItem": {"WebhooksTable"},
        "dynamodb:UpdateItem": {"WebhooksTable", "CountersTable", "WebhookDeliveriesTable"},
        "dynamodb:DeleteItem": {"WebhooksTable"},
        "dynamodb:BatchGetItem": {"WebhooksTable"},
        "dynamodb:Query": {"WebhooksTable/index/byShard", "WebhookAttemptsTable"},
        "sqs:SendMessage": {"WebhookDeliveryQueue"},
        "kms:Encrypt": {"WebhookSecretsKey"},
    }


def test_the_events_function_reads_the_streams_and_the_active_endpoints_and_stores_what_it_queues():
    # The orders', shipments', products' and returns' changes; and the rights requests'
    # (an erasure done: usuario.eliminado). Each delivery is stored with its body before its name is
    # queued (a queued message carries no personal data), stripped where the person was
    # erased already (UserIdsTable).
    streams = {
        f"{table}/StreamArn"
        for table in (
            "OrdersTable",
            "ShipmentsTable",
            "ProductsTable",
            "DataRequestsTable",
            "ReturnsTable",
        )
    }
    assert granted("WebhookEventsFunction") == {
        "dynamodb:Query": {"WebhooksTable/index/activos"},
        "dynamodb:GetItem": {"WebhookDeliveriesTable", "UserIdsTable"},
        "dynamodb:PutItem": {"WebhookDeliveriesTable"},
        "sqs:SendMessage": {"WebhookDeliveryQueue", "WebhookEventsDeadLetterQueue"},
        "dynamodb:DescribeStream": streams,
        "dynamodb:GetRecords": streams,
        "dynamodb:GetShardIterator": streams,
        "dynamodb:ListStreams": {"*"},  # it has no resource-level permission
    }
    # The index it reads holds no secret: what each endpoint subscribed to, and since when.
    (active,) = [
        index
        for index in props("WebhooksTable")["GlobalSecondaryIndexes"]
        if index["IndexName"] == "activos"
    ]
    assert active["Projection"] == {
        "ProjectionType": "INCLUDE",
        "NonKeyAttributes": ["eventos", "creadoEn"],
    }


def test_the_delivery_function_consumes_its_queue_and_records_what_it_did():
    # ... and asks whether an event's person was erased (UserIdsTable: sent without their
    # data).
    assert granted("WebhookDeliveryFunction") == {
        "dynamodb:GetItem": {"WebhooksTable", "WebhookDeliveriesTable", "UserIdsTable"},
        "dynamodb:UpdateItem": {"WebhooksTable", "WebhookDeliveriesTable"},
        "dynamodb:PutItem": {"WebhookDeliveriesTable", "WebhookAttemptsTable"},
        "sqs:ReceiveMessage": {"WebhookDeliveryQueue"},
        "sqs:DeleteMessage": {"WebhookDeliveryQueue"},
        "sqs:GetQueueAttributes": {"WebhookDeliveryQueue"},
        "sqs:ChangeMessageVisibility": {"WebhookDeliveryQueue"},
        "sqs:SendMessage": {"WebhookDeliveryDeadLetterQueue"},
        "kms:Decrypt": {"WebhookSecretsKey"},
    }


def test_the_secrets_key_encrypts_in_one_function_decrypts_in_another_and_no_more():
    users = {
        name: {action for action in granted(name) if action.startswith("kms:")}
        for name in template.resources("AWS::Serverless::Function")
    }
    # Webhooks' secrets, and carriers' (sealed by the shipping API, opened by the tracking
    # function to check a carrier's signature: docs/api.md#tracking).
    assert {name: used for name, used in users.items() if used} == {
        "WebhooksFunction": {"kms:Encrypt"},
        "WebhookDeliveryFunction": {"kms:Decrypt"},
        "ShippingFunction": {"kms:Encrypt"},
        "TrackingFunction": {"kms:Decrypt"},
    }
    bound_to = {"ShippingFunction": "transportista", "TrackingFunction": "transportista"}
    for function in users:
        for policy in props(function).get("Policies", []):
            for statement in policy.get("Statement", []):
                if str(statement["Action"]).startswith("kms:"):
                    # Only with its owner named: a secret is sealed for its endpoint (or
                    # its carrier), and one of a kind never opens as the other's.
                    context = bound_to.get(function, "webhookId")
                    assert statement["Condition"] == {
                        "Null": {f"kms:EncryptionContext:{context}": "false"}
                    }
    key = template.load()["Resources"]["WebhookSecretsKey"]
    assert key["DeletionPolicy"] == "Retain"  # a secret stored under it outlives a stack
    assert key["Properties"]["EnableKeyRotation"] is True
    (statement,) = key["Properties"]["KeyPolicy"]["Statement"]
    # The account's IAM decides who uses it: the roles above, and administrators.
    assert statement["Principal"] == {
        "AWS": {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"}
    }
    for function in (name for name, used in users.items() if used):
        env = props(function)["Environment"]["Variables"]
        assert env["WEBHOOK_SECRETS_KEY"] == {"Ref": "WebhookSecretsKey"}


def mappings() -> dict[str, dict]:
    return {
        name: res["Properties"]
        for name, res in template.resources("AWS::Lambda::EventSourceMapping").items()
    }


def test_each_tables_stream_feeds_the_events_and_a_failing_batch_ends_in_a_dead_letter_queue():
    streams = {
        props["EventSourceArn"]["Fn::GetAtt"][0]: props
        for props in mappings().values()
        if props["FunctionName"] == {"Ref": "WebhookEventsFunction"}
    }
    assert set(streams) == {
        "OrdersTable",
        "ShipmentsTable",
        "ProductsTable",
        "DataRequestsTable",
        "ReturnsTable",
    }
    for table, mapping in streams.items():
        assert props(table)["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
        assert mapping["EventSourceArn"] == {"Fn::GetAtt": [table, "StreamArn"]}
        assert mapping["BisectBatchOnFunctionError"] is True
        assert 0 < mapping["MaximumRetryAttempts"] <= 10
        assert mapping["DestinationConfig"] == {
            "OnFailure": {"Destination": {"Fn::GetAtt": ["WebhookEventsDeadLetterQueue", "Arn"]}}
        }
    # No function is fed by a SAM event of these types: their managed policies reach
    # every stream and queue of the account.
    for function in template.resources("AWS::Serverless::Function").values():
        kinds = {event["Type"] for event in function["Properties"].get("Events", {}).values()}
        assert not kinds & {"SQS", "DynamoDB", "Kinesis"}


def test_the_queue_gives_each_delivery_its_retries_then_the_dead_letter_queue():
    (mapping,) = [
        props
        for props in mappings().values()
        if props["FunctionName"] == {"Ref": "WebhookDeliveryFunction"}
    ]
    assert mapping["EventSourceArn"] == {"Fn::GetAtt": ["WebhookDeliveryQueue", "Arn"]}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    queue = props("WebhookDeliveryQueue")
    # The first try and one per step of the schedule, then one receive that finds the
    # last attempt's worker died (and dead-letters it), and one to spare; past that, SQS
    # moves it to the dead-letter queue itself.
    assert queue["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": ["WebhookDeliveryDeadLetterQueue", "Arn"]},
        "maxReceiveCount": len(WEBHOOK_RETRY_SECONDS) + 3,
    }
    env = props("WebhookDeliveryFunction")["Environment"]["Variables"]
    assert env["WEBHOOK_DEAD_LETTER_QUEUE"] == {"Ref": "WebhookDeliveryDeadLetterQueue"}
    assert queue["VisibilityTimeout"] >= 6 * props("WebhookDeliveryFunction")["Timeout"]
    assert queue["MessageRetentionPeriod"] > sum(WEBHOOK_RETRY_SECONDS) + 6 * 30
    assert max(WEBHOOK_RETRY_SECONDS) <= MAX_VISIBILITY_SECONDS
    parameter = template.load()["Parameters"]["WebhookRetrySeconds"]
    schedule = Webhooks.from_env({"WEBHOOK_RETRY_SECONDS": parameter["Default"]})
    assert schedule.webhook_retry_seconds == WEBHOOK_RETRY_SECONDS
    env = props("WebhookDeliveryFunction")["Environment"]["Variables"]
    assert env["WEBHOOK_RETRY_SECONDS"] == {"Ref": "WebhookRetrySeconds"}


def test_every_webhook_function_is_told_its_queue_and_tables():
    for function in ("WebhooksFunction", "WebhookEventsFunction", "WebhookDeliveryFunction"):
        env = props(function)["Environment"]["Variables"]
        assert env["WEBHOOK_QUEUE"] == {"Ref": "WebhookDeliveryQueue"}, function
        assert env["WEBHOOKS_TABLE"] == {"Ref": "WebhooksTable"}, function
        assert "WEBHOOK_LOCAL_TARGETS" not in env, function  # https and public, on AWS


def test_dead_letters_of_both_are_alarmed_on():
    alarms = template.resources("AWS::CloudWatch::Alarm")
    watched = {
        alarm["Properties"]["Dimensions"][0]["Value"]["Fn::GetAtt"][0]
        for alarm in alarms.values()
        if alarm["Properties"].get("Namespace") == "AWS/SQS"
    }
    assert {"WebhookDeliveryDeadLetterQueue", "WebhookEventsDeadLetterQueue"} <= watched


def test_deliveries_run_within_their_own_bounded_concurrency():
    """However many endpoints are slow, deliveries hold at most WebhookDeliveryConcurrency
    environments: reserved (the API functions keep the account's rest) and the queue
    mapping's maximum (no poller past them, whose throttles would spend tries)."""
    (mapping,) = [
        props
        for props in mappings().values()
        if props["FunctionName"] == {"Ref": "WebhookDeliveryFunction"}
    ]
    bound = {"Ref": "WebhookDeliveryConcurrency"}
    assert props("WebhookDeliveryFunction")["ReservedConcurrentExecutions"] == bound
    assert mapping["ScalingConfig"] == {"MaximumConcurrency": bound}
    parameter = template.load()["Parameters"]["WebhookDeliveryConcurrency"]
    assert parameter["MinValue"] == 2  # SQS's least maximum concurrency
    assert 2 <= parameter["Default"] <= 50
