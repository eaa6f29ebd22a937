"""`make dead-letters` and `make redrive`: the order events Lambda gave up on, and sending
them back once the cause is fixed.

An asynchronous invocation of the order-events listener that fails (the notification
service is down) is tried twice more, then sent to OrderEventsDeadLetterQueue with the
event and the error (Lambda's on-failure destination record). `list` prints each;
`redrive` invokes the function it was for again, asynchronously, with its event, and
deletes it from the queue once the invoke is accepted. The listener handles each order
once, so an event redriven twice changes nothing more.

Without STAGE: the local stack's queue and Lambda (`make run` or `make emulators`
running, at DYNAMODB_PORT and LAMBDA_PORT). With STAGE=dev|prod: that deployed stack's,
with your AWS credentials (the queue's URL from the stack's outputs).
"""

import argparse
import json
import sys

import boto3

QUEUE = "OrderEventsDeadLetterQueue"


def _clients(stage: str | None):
    if stage is None:
        from infra.local import LOCAL_AWS_ENV
        from infra.local.running import url_of

        region = LOCAL_AWS_ENV["AWS_DEFAULT_REGION"]
        credentials = {
            "aws_access_key_id": "local",
            "aws_secret_access_key": "local",
            "aws_session_token": "local",
            "region_name": region,
        }
        sqs = boto3.client(
            "sqs", endpoint_url=url_of("make dead-letters", "DYNAMODB_PORT"), **credentials
        )
        lam = boto3.client(
            "lambda", endpoint_url=url_of("make dead-letters", "LAMBDA_PORT"), **credentials
        )
        return sqs, lam, sqs.get_queue_url(QueueName=QUEUE)["QueueUrl"]
    from infra.tokens import stage_stack

    stack, region = stage_stack(stage)
    outputs = (
        boto3.client("cloudformation", region_name=region)
        .describe_stacks(StackName=stack)["Stacks"][0]
        .get("Outputs", [])
    )
    url = next(o["OutputValue"] for o in outputs if o["OutputKey"] == f"{QUEUE}Url")
    return (
        boto3.client("sqs", region_name=region),
        boto3.client("lambda", region_name=region),
        url,
    )


def messages(sqs, url: str, hide_seconds: int):
    """Every message of the queue, each once; one received is hidden `hide_seconds` (0: it
    stays for the next reader, and the walk ends when one comes round again)."""
    seen: set[str] = set()
    while True:
        batch = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0, VisibilityTimeout=hide_seconds
        ).get("Messages", [])
        fresh = [message for message in batch if message["MessageId"] not in seen]
        if not fresh:
            return
        seen.update(message["MessageId"] for message in fresh)
        yield from fresh


def _function_of(record: dict) -> str:
    """The function a record is for, without its version: arn:...:function:Name:$LATEST."""
    arn = record["requestContext"]["functionArn"]
    return arn.rsplit(":", 1)[0] if arn.count(":") > 6 else arn


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("list", "redrive"))
    parser.add_argument("--stage", help="a samconfig.toml environment: dev, prod")
    args = parser.parse_args(argv)
    sqs, lam, url = _clients(args.stage)
    done = 0
    for message in messages(sqs, url, 0 if args.action == "list" else 60):
        record = json.loads(message["Body"])
        if args.action == "list":
            print(
                json.dumps(
                    {
                        "event": record["requestPayload"],
                        "error": record.get("responsePayload"),
                        "condition": record["requestContext"].get("condition"),
                        "attempts": record["requestContext"].get("approximateInvokeCount"),
                        "at": record.get("timestamp"),
                    },
                    ensure_ascii=False,
                )
            )
        else:
            lam.invoke(
                FunctionName=_function_of(record),
                InvocationType="Event",
                Payload=json.dumps(record["requestPayload"]).encode("utf-8"),
            )
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        done += 1
    verb = "waiting in" if args.action == "list" else "sent back from"
    print(f"{done} event{'s' if done != 1 else ''} {verb} {QUEUE}.", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
