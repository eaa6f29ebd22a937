"""What a function's init does to keep cold starts short: the collector paused, warm-ups
that never fail init, credentials read from the environment only, botocore's models cut
to the operations called."""

import gc
import logging

import pytest
from botocore.credentials import EnvProvider

from common.platform import aws
from common.platform.lambda_init import collector_paused, start, warm_up
from trim_botocore import trim_model


@pytest.fixture
def unfrozen():
    yield
    gc.unfreeze()


def test_init_runs_without_the_collector_and_freezes_what_it_built(unfrozen):
    frozen_before = gc.get_freeze_count()
    with collector_paused():
        assert not gc.isenabled()
        built = [{"n": n} for n in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen_before + len(built)


def test_the_collector_comes_back_even_when_init_fails(unfrozen):
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("bad setting")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(unfrozen):
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_failed_warm_up_is_a_warning_and_init_goes_on(caplog):
    logger = logging.getLogger("warm-up-test")

    def unreachable():
        raise ConnectionError("no route to the table")

    with caplog.at_level(logging.WARNING):
        warm_up(unreachable, logger)
    (record,) = caplog.records
    assert record.getMessage() == "warming up at init failed"
    assert "no route to the table" in record.error


def test_a_warm_up_runs_its_rehearsal():
    done = []
    warm_up(lambda: done.append(True), logging.getLogger("warm-up-test"))
    assert done == [True]


def wiring(**parts):
    """A function package's wiring as start() reads it: FUNCTION, create, maybe rehearse."""
    from types import SimpleNamespace

    handler = SimpleNamespace(logger=logging.getLogger("warm-up-test"))
    return SimpleNamespace(FUNCTION="SomeFunction", create=lambda: handler, **parts)


def test_a_function_with_a_rehearsal_is_warmed_up_and_one_without_is_not(monkeypatch):
    monkeypatch.setattr(aws, "HOME", aws.HOME)
    rehearsed = []
    with_one = wiring(rehearse=lambda handler: rehearsed.append(handler))
    assert rehearsed == [start(with_one)]
    # A schedule's, a stream's, a queue's: init builds the handler and stops there.
    assert start(wiring()).logger.name == "warm-up-test"
    assert len(rehearsed) == 1


def test_credentials_come_from_the_environment_alone_when_it_has_them(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "token")
    session = aws._new_session()
    resolver = session.get_component("credential_provider")
    assert [type(provider) for provider in resolver.providers] == [EnvProvider]
    credentials = session.get_credentials().get_frozen_credentials()
    assert (credentials.access_key, credentials.token) == ("AKIDEXAMPLE", "token")


def test_without_them_botocore_keeps_its_whole_chain(monkeypatch):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    resolver = aws._new_session().get_component("credential_provider")
    assert len(resolver.providers) > 1


MODEL = {
    "metadata": {"serviceId": "Example"},
    "operations": {
        "GetThing": {
            "name": "GetThing",
            "input": {"shape": "GetThingInput"},
            "output": {"shape": "Thing"},
            "errors": [{"shape": "Missing"}],
            "documentation": "<p>Gets a thing.</p>",
        },
        "ListOthers": {
            "name": "ListOthers",
            "input": {"shape": "ListInput"},
            "output": {"shape": "Others"},
        },
    },
    "shapes": {
        "GetThingInput": {"type": "structure", "members": {"Id": {"shape": "Id"}}},
        "Thing": {
            "type": "structure",
            "members": {"Tags": {"shape": "TagMap"}, "Parts": {"shape": "PartList"}},
            "documentation": "<p>A thing.</p>",
        },
        "TagMap": {"type": "map", "key": {"shape": "Id"}, "value": {"shape": "TagValue"}},
        "PartList": {"type": "list", "member": {"shape": "Part"}},
        "Part": {"type": "structure", "members": {"Id": {"shape": "Id"}}},
        "Missing": {"type": "structure", "members": {}, "exception": True},
        "Id": {"type": "string"},
        "TagValue": {"type": "string"},
        "ListInput": {"type": "structure", "members": {"Token": {"shape": "Token"}}},
        "Others": {"type": "list", "member": {"shape": "Id"}},
        "Token": {"type": "string"},
    },
}


def test_a_trimmed_model_keeps_the_operations_listed_and_every_shape_they_reach():
    trimmed = trim_model(MODEL, frozenset({"GetThing"}))
    assert set(trimmed["operations"]) == {"GetThing"}
    assert set(trimmed["shapes"]) == {
        "GetThingInput",
        "Thing",
        "TagMap",
        "PartList",
        "Part",
        "Missing",
        "Id",
        "TagValue",
    }
    assert trimmed["metadata"] == MODEL["metadata"]
    assert "documentation" not in trimmed["operations"]["GetThing"]
    assert "documentation" not in trimmed["shapes"]["Thing"]


def test_an_operation_the_model_lacks_stops_the_build():
    with pytest.raises(SystemExit, match="Example has no operation"):
        trim_model(MODEL, frozenset({"GetThing", "DeleteThing"}))
