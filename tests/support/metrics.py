"""The CloudWatch metrics a process printed, read back from its output (embedded metric
format: each line a JSON object whose `_aws` key declares the metrics it holds)."""

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    namespace: str
    name: str
    unit: str
    value: float
    dimensions: dict


def metrics_in(output: str) -> list[Metric]:
    found = []
    for line in output.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict) or "_aws" not in record:
            continue
        for declared in record["_aws"]["CloudWatchMetrics"]:
            dimensions = {key: record[key] for group in declared["Dimensions"] for key in group}
            for metric in declared["Metrics"]:
                value = record[metric["Name"]]
                for one in value if isinstance(value, list) else [value]:
                    found.append(
                        Metric(
                            declared["Namespace"], metric["Name"], metric["Unit"], one, dimensions
                        )
                    )
    return found


def named(output: str, name: str) -> list[Metric]:
    return [metric for metric in metrics_in(output) if metric.name == name]
