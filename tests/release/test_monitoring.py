"""The alarms and the dashboard, as CloudFormation sees them, are the ones operators know.

tests/release/monitoring.json holds them as they were before the template built them
from lists: every alarm resource, and the dashboard's name and widgets (its body parsed,
CloudFormation's substitutions still written ${...}). A difference is either a mistake or
a change to make on purpose: rewrite the file with
`.venv/bin/python -m tests.release.test_monitoring` and review its diff.
"""

import json
from pathlib import Path

from infra import template

FIXTURE = Path(__file__).with_name("monitoring.json")


def monitoring(resources: dict) -> dict:
    """Every alarm, and the dashboard with its body parsed: what an operator gets."""
    alarms = {name: res for name, res in resources.items()
              if res["Type"] == "AWS::CloudWatch::Alarm"}
    dashboard = resources["Dashboard"]["Properties"]
    return {"alarms": alarms,
            "dashboard": {"DashboardName": dashboard["DashboardName"],
                          "DashboardBody": json.loads(dashboard["DashboardBody"]["Fn::Sub"])}}


def test_the_alarms_and_the_dashboard_are_the_ones_recorded():
    assert monitoring(template.load()["Resources"]) == json.loads(FIXTURE.read_text())


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(monitoring(template.load()["Resources"]), indent=1,
                                  sort_keys=True) + "\n")
