"""infra/template.py's expand(): what CloudFormation's AWS::LanguageExtensions makes of
the constructs the template uses, and a refusal for those it does not."""

import copy
import json

import pytest

from infra.template import expand

LOOPED = {
    "Transform": ["AWS::LanguageExtensions", "AWS::Serverless-2016-10-31"],
    "Mappings": {"Sizes": {"Small": {"Mb": "128"}}},
    "Resources": {
        "Fn::ForEach::Queues": [
            "Name",
            ["Orders", "dead-letter"],
            {
                "&{Name}Queue": {
                    "Type": "AWS::SQS::Queue",
                    "Properties": {
                        "QueueName": {"Fn::Sub": "${AWS::StackName}-${Name}"},
                        "Tags": [{"Key": "name", "Value": {"Ref": "Name"}}],
                        "Fn::ForEach::Sizes": [
                            "Size",
                            ["Small"],
                            {"${Size}Limit": {"Fn::FindInMap": ["Sizes", {"Ref": "Size"}, "Mb"]}},
                        ],
                    },
                }
            },
        ],
        "Alarm": {
            "Type": "AWS::CloudWatch::Alarm",
            "Properties": {"Value": {"Ref": {"Fn::Sub": "${Which}Queue"}}},
        },
    },
}


def test_a_loop_writes_one_copy_per_item_with_the_item_put_in():
    resources = expand(LOOPED)["Resources"]
    assert resources["deadletterQueue"]["Properties"] == {
        "QueueName": {"Fn::Sub": "${AWS::StackName}-dead-letter"},
        "Tags": [{"Key": "name", "Value": "dead-letter"}],
        "SmallLimit": "128",
    }
    assert resources["OrdersQueue"]["Properties"]["Tags"] == [{"Key": "name", "Value": "Orders"}]
    assert list(resources) == ["OrdersQueue", "deadletterQueue", "Alarm"]


def test_the_result_is_plain_cloudformation_and_the_input_untouched():
    before = copy.deepcopy(LOOPED)
    out = expand(LOOPED)
    assert before == LOOPED
    assert out["Transform"] == "AWS::Serverless-2016-10-31"
    assert "Mappings" not in out  # every lookup resolved: nothing reads it any more
    assert not [key for key in out["Resources"] if key.startswith("Fn::ForEach")]


def test_a_ref_to_a_computed_name_refs_that_name():
    made = expand(
        {
            "Resources": {
                "Fn::ForEach::A": [
                    "X",
                    ["One"],
                    {
                        "${X}Alarm": {
                            "Type": "T",
                            "Properties": {"Value": {"Ref": {"Fn::Sub": "${X}Function"}}},
                        }
                    },
                ]
            }
        }
    )
    assert made["Resources"]["OneAlarm"]["Properties"]["Value"] == {"Ref": "OneFunction"}


def test_a_name_written_twice_is_refused():
    twice = {
        "Resources": {
            "OneAlarm": {"Type": "T"},
            "Fn::ForEach::A": ["X", ["One"], {"${X}Alarm": {"Type": "T"}}],
        }
    }
    with pytest.raises(ValueError, match="OneAlarm"):
        expand(twice)


def test_a_loop_over_a_parameter_is_refused_not_skipped():
    with pytest.raises(ValueError, match="Fn::ForEach::A"):
        expand({"Resources": {"Fn::ForEach::A": ["X", {"Ref": "Names"}, {"${X}": {}}]}})


def test_find_in_map_looks_up_literal_keys_only():
    mappings = {"M": {"K": {"V": "found"}}}
    assert (
        expand({"Mappings": mappings, "Value": {"Fn::FindInMap": ["M", "K", "V"]}})["Value"]
        == "found"
    )
    assert (
        expand(
            {
                "Mappings": mappings,
                "Value": {"Fn::FindInMap": ["M", "K", "Missing", {"DefaultValue": "default"}]},
            }
        )["Value"]
        == "default"
    )
    by_region = {"Fn::FindInMap": ["M", {"Ref": "AWS::Region"}, "V"]}
    out = expand({"Mappings": mappings, "Value": by_region})
    assert out["Value"] == by_region and out["Mappings"] == mappings  # still read
    with pytest.raises(KeyError):
        expand({"Mappings": mappings, "Value": {"Fn::FindInMap": ["M", "K", "Missing"]}})


@pytest.mark.parametrize(
    "sub, made",
    [
        ("plain", "plain"),
        ("${AWS::StackName}-x", {"Fn::Sub": "${AWS::StackName}-x"}),
        ("${!Literal}", {"Fn::Sub": "${!Literal}"}),
        (
            ["${AWS::StackName}-${Api}", {"Api": "gateway"}],
            {"Fn::Sub": "${AWS::StackName}-gateway"},
        ),
        (["${Api}", {"Api": "gateway"}], "gateway"),
        (
            ["${A}-${B}", {"A": "a", "B": {"Ref": "B"}}],
            {"Fn::Sub": ["a-${B}", {"B": {"Ref": "B"}}]},
        ),
    ],
)
def test_sub_puts_in_what_is_given_as_a_plain_string(sub, made):
    assert expand({"Value": {"Fn::Sub": sub}})["Value"] == made


def test_to_json_string_is_the_json_text_with_each_reference_substituted():
    body = expand(
        {
            "Value": {
                "Fn::ToJsonString": {
                    "region": {"Ref": "AWS::Region"},
                    "queue": {"Fn::GetAtt": ["Queue", "QueueName"]},
                    "api": {"Fn::Sub": "${AWS::StackName}-gateway"},
                    "n": 300,
                    "literal": "cost ${x}",
                }
            }
        }
    )["Value"]["Fn::Sub"]
    assert json.loads(body) == {
        "region": "${AWS::Region}",
        "queue": "${Queue.QueueName}",
        "api": "${AWS::StackName}-gateway",
        "n": 300,
        "literal": "cost ${!x}",
    }  # Fn::Sub gives back "cost ${x}"
    assert expand({"Value": {"Fn::ToJsonString": [1, "a"]}})["Value"] == '[1,"a"]'


def test_a_function_to_json_string_is_not_taught_is_refused():
    with pytest.raises(ValueError, match="Fn::If"):
        expand({"Value": {"Fn::ToJsonString": {"a": {"Fn::If": ["C", "x", "y"]}}}})
