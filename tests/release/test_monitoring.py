"""The alarms and the dashboard, as CloudFormation has them, are the ones operators know.

Most alarms are written as loops (AWS::LanguageExtensions in infra/template.yaml); these
tests read them as CloudFormation has them once the transform ran (infra/template.py,
`expanded()`). tests/release/monitoring.json holds every alarm resource and the
dashboard's name and widgets (its body parsed, CloudFormation's substitutions still
written ${...}) as they were before the loops. A difference is either a mistake or a
change made on purpose: rewrite the file with
`.venv/bin/python -m tests.release.test_monitoring` and review its diff.
"""

import json
from pathlib import Path

import pytest

from infra import template

FIXTURE = Path(__file__).with_name("monitoring.json")
TEMPLATE = Path(template.__file__).with_name("template.yaml")
ALARM = "AWS::CloudWatch::Alarm"


def monitoring(resources: dict) -> dict:
    """Every alarm, and the dashboard with its body parsed: what an operator gets."""
    alarms = {name: res for name, res in resources.items() if res["Type"] == ALARM}
    dashboard = resources["Dashboard"]["Properties"]
    return {
        "alarms": alarms,
        "dashboard": {
            "DashboardName": dashboard["DashboardName"],
            "DashboardBody": json.loads(dashboard["DashboardBody"]["Fn::Sub"]),
        },
    }


def test_the_alarms_and_the_dashboard_are_the_ones_recorded():
    assert monitoring(template.expanded()["Resources"]) == json.loads(FIXTURE.read_text())


def test_cfn_lint_expands_the_loops_as_the_tests_read_them():
    """The expansion the tests (and infra/translate.py) rely on is infra/template.py's
    own; cfn-lint's, written apart from it, must find the same alarms and dashboard."""
    from cfnlint.decode import decode
    from cfnlint.template import Template

    decoded, problems = decode(str(TEMPLATE))
    assert not problems
    linted = Template(str(TEMPLATE), decoded, ["us-east-1"])
    assert not linted.transform()
    # cfn-lint keeps Fn::ToJsonString, and a Fn::Sub with the variables it was given;
    # expand() puts those in (what CloudFormation resolves either way).
    theirs = {
        name: res
        for name, res in linted.template["Resources"].items()
        if res["Type"] in (ALARM, "AWS::CloudWatch::Dashboard")
    }
    assert monitoring(template.expand({"Resources": theirs})["Resources"]) == monitoring(
        template.expanded()["Resources"]
    )


def _loop(name: str) -> tuple[str, list[str], dict]:
    return template.load()["Resources"][f"{template.FOR_EACH}{name}"]


@pytest.mark.parametrize("loop", ["ApiAlarms", "MetricAlarms"])
def test_each_alarm_of_a_table_is_in_its_loop_and_each_one_looped_in_the_table(loop):
    """A Mappings entry whose name is missing from its loop's list would make no alarm,
    silently (a name without an entry fails the lint)."""
    _, names, _ = _loop(loop)
    assert sorted(names) == sorted(template.load()["Mappings"][loop])


def test_alarms_on_the_codes_metrics_name_metrics_it_writes():
    from common.platform import metrics

    written = {
        value for name, value in vars(metrics).items() if name.isupper() and name != "NAMESPACE"
    }
    watched = {
        alarm["Properties"]["MetricName"]
        for alarm in template.resources(ALARM, as_deployed=True).values()
        if alarm["Properties"].get("Namespace") == metrics.NAMESPACE
    }
    assert watched and watched <= written


def _always() -> set[str]:
    """The functions every stack has (a loop cannot carry a condition)."""
    return {
        name
        for name, function in template.resources("AWS::Serverless::Function").items()
        if "Condition" not in function
    }


def test_the_function_loop_names_functions_and_the_authorizer_is_written_out():
    _, names, _ = _loop("FunctionAlarms")
    assert {f"{name}Function" for name in names} | {"AuthorizerFunction"} == _always()
    # Written out, as its errors are counted apart from refused tokens: looping it too
    # would make its alarms twice (which expand() refuses).
    assert "Authorizer" not in names


def test_the_dashboard_shows_every_functions_errors_and_throttles():
    """A loop cannot make list items, so each function's row in these two widgets is
    written out: a new function must be added there too."""
    functions = _always()  # a Ref to a function a stack may lack would fail the dashboard
    body = json.loads(
        template.resources("AWS::CloudWatch::Dashboard", as_deployed=True)["Dashboard"][
            "Properties"
        ]["DashboardBody"]["Fn::Sub"]
    )
    widgets = {
        widget["properties"]["title"]: widget["properties"]["metrics"] for widget in body["widgets"]
    }
    for title, metric in (("Function errors", "Errors"), ("Function throttles", "Throttles")):
        assert sorted(widgets[title]) == sorted(
            ["AWS/Lambda", metric, "FunctionName", "${" + name + "}"] for name in functions
        )


@pytest.mark.parametrize(
    "kind",
    [
        "AWS::Serverless::Function",
        "AWS::Serverless::Api",
        "AWS::Serverless::LayerVersion",
        "AWS::DynamoDB::Table",
    ],
)
def test_what_the_local_stack_reads_is_written_out_not_looped(kind):
    """The local stack reads the template as written (load()): a table, function, API or
    layer made by a loop would be missing from it."""
    assert template.resources(kind) == template.resources(kind, as_deployed=True)


def test_a_function_only_some_stacks_have_has_its_alarms_under_its_condition():
    resources = template.expanded()["Resources"]
    for name, function in template.resources("AWS::Serverless::Function").items():
        if "Condition" in function:
            for metric in ("Errors", "Throttles"):
                alarm = resources[f"{name.removesuffix('Function')}{metric}Alarm"]
                assert alarm["Condition"] == function["Condition"], name
                assert alarm["Properties"]["Dimensions"] == [
                    {"Name": "FunctionName", "Value": {"Ref": name}}
                ]


if __name__ == "__main__":
    FIXTURE.write_text(
        json.dumps(monitoring(template.expanded()["Resources"]), indent=1, sort_keys=True) + "\n"
    )
