"""The template's tables made empty for the next test, cheaply."""

from infra import template


def _declared(name: str, props: dict) -> dict:
    """What a test could change of a table, as the template declares it."""
    return {
        "keys": sorted((k["AttributeName"], k["KeyType"]) for k in props["KeySchema"]),
        "indexes": sorted(i["IndexName"] for i in props.get("GlobalSecondaryIndexes", [])),
        "stream": "StreamSpecification" in props,
    }


def _described(client, name: str) -> dict | None:
    try:
        table = client.describe_table(TableName=name)["Table"]
    except client.exceptions.ResourceNotFoundException:
        return None
    return {
        "keys": sorted((k["AttributeName"], k["KeyType"]) for k in table["KeySchema"]),
        "indexes": sorted(i["IndexName"] for i in table.get("GlobalSecondaryIndexes", [])),
        "stream": bool(table.get("StreamSpecification", {}).get("StreamEnabled")),
    }


def emptied_tables(client) -> None:
    """Every table of the template, as declared and with no item: one that is missing,
    unlike its declaration or streamed is made again, the others lose their items."""
    declared = template.tables()
    # A table with a stream is made again whatever it holds: emptied, its stream would
    # still hold an earlier test's records (and one more for each item deleted), which a
    # test reading the stream from its start would take for its own.
    remade = [
        name
        for name, props in declared.items()
        if "StreamSpecification" in props or _described(client, name) != _declared(name, props)
    ]
    for name in remade:
        if _described(client, name) is not None:
            client.delete_table(TableName=name)
    if remade:
        template.create_tables(client, only=set(remade))
    for name, props in declared.items():
        if name not in remade:
            _empty(client, name, [k["AttributeName"] for k in props["KeySchema"]])


def _empty(client, name: str, keys: list[str]) -> None:
    names = {f"#k{n}": key for n, key in enumerate(keys)}
    scan = {
        "TableName": name,
        "ProjectionExpression": ", ".join(names),
        "ExpressionAttributeNames": names,
    }
    while True:
        page = client.scan(**scan)
        items = page.get("Items", [])
        for start in range(0, len(items), 25):
            client.batch_write_item(
                RequestItems={
                    name: [{"DeleteRequest": {"Key": item}} for item in items[start : start + 25]]
                }
            )
        if "LastEvaluatedKey" not in page:
            return
        scan["ExclusiveStartKey"] = page["LastEvaluatedKey"]
