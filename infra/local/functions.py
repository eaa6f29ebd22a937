"""The template's functions, as the local runtime runs them (infra/template.yaml is the one
declaration): each one's handler, code folder and layers, its environment with local
values where the template's come from AWS, its timeout and memory, how much of it may
run at once, and what Lambda does with its asynchronous invocations.

Local values: a table, a function or a queue is named by its logical id (what the local
emulators create); a key's secret is left out (locally the keys come from JWT_SECRET,
which the stack always sets, and PAGE_TOKEN_KEY or its development default); an API's
URL is its local server's; a KMS key is its alias in the emulator (alias/<logical id>);
a parameter is its default, and a condition is evaluated on those, except where LOCAL
below says otherwise. Any platform variable
(common.platform.settings.VARIABLES) set in the environment of `make run` is passed on as it is,
so a developer can set what a function reads (BREAKER_FAIL_MAX=2, say) without editing
the template.
"""

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from common.platform.settings import VARIABLES
from infra import template

ROOT = template.TEMPLATE.parent.parent
# Parameters whose local value is not their default: order events go to the local
# notification service (on AWS, forwarding is a deployment's choice); the console is a
# page of the local gateway (infra/dev/console.py), not a bucket and its deployer.
# And users sign in to the template's pool, held by the emulator (infra/local/user_pool.py).
# A failed webhook delivery is retried within seconds, not hours, so a developer sees
# retries and dead letters happen (WEBHOOK_RETRY_SECONDS set for `make run` wins).
# (LAMBDA_MAX_ENVIRONMENTS caps the deliveries' environments, and their pollers, too.)
LOCAL_PARAMETERS = {
    "ForwardOrderEvents": "true",
    "DeployConsole": "false",
    "CreateUserPool": "true",
    "WebhookRetrySeconds": "1,2,4,8,16",
    # Four delivery environments and one tracking (a laptop's), not the ten AWS's reserve.
    "WebhookDeliveryConcurrency": "4",
    "TrackingReservedConcurrency": "1",
}
# `!Ref <function>.Alias`: the alias SAM publishes (AutoPublishAlias: live).
ALIAS, ALIAS_NAME = ".Alias", "live"
# How many environments a function without reserved concurrency may have at once.
DEFAULT_CONCURRENCY = 4
_API_URL = re.compile(r"https://\$\{(\w+)\}\.execute-api\.")
# The template's condition functions: true or false of their arguments' local values.
_LOGICAL = {"Fn::Equals", "Fn::Not", "Fn::Or", "Fn::And"}


@dataclass(frozen=True)
class AsyncConfig:
    """Lambda's handling of an asynchronous invocation that fails: tried again up to
    `retries` times, dropped past `max_age_seconds`, then sent to `on_failure` (a
    queue's logical id), if any."""

    retries: int = 2
    max_age_seconds: int = 6 * 3600
    on_failure: str | None = None


@dataclass(frozen=True)
class EventSource:
    """One event source mapping of a function (an AWS::Lambda::EventSourceMapping, or a
    SAM event of Type SQS or DynamoDB): Lambda polling a queue, or a table's stream, and
    invoking the function with batches of what it finds (infra/local/event_sources.py)."""

    kind: str  # "SQS" or "DynamoDB"
    source: str  # the queue's logical id, or the table's whose stream it reads
    batch_size: int
    batching_window_seconds: float = 0.0
    # FunctionResponseTypes [ReportBatchItemFailures]: the answer names what failed.
    reports_failures: bool = False
    # Streams only: where reading starts, and what happens to a batch that fails.
    starting_position: str = "LATEST"
    bisect_on_error: bool = False
    retries: int = -1  # -1: until the records expire
    max_record_age_seconds: int = -1
    on_failure: str | None = None  # a queue's logical id
    # SQS only: how many batches at once (ScalingConfig.MaximumConcurrency), if capped.
    max_concurrency: int | None = None


@dataclass(frozen=True)
class FunctionSpec:
    name: str  # its logical id, which is also its local name
    handler: str  # module.attribute
    code_dir: Path
    layer_dirs: tuple[Path, ...]
    environment: Mapping[str, str]
    timeout_seconds: float
    memory_mb: int
    concurrency: int  # environments at once: its reserved concurrency, or the default
    # No reserved concurrency (nor LAMBDA_MAX_ENVIRONMENTS): on AWS it would start another
    # environment for a call that finds every one busy, so locally calls have their own
    # (infra/local/lambdas.py: the cap of 4 only keeps a laptop's memory in check).
    scales: bool = True
    asynchronous: AsyncConfig = field(default_factory=AsyncConfig)
    schedules_seconds: tuple[float, ...] = ()  # rate(...) of its Schedule events
    event_sources: tuple[EventSource, ...] = ()

    @property
    def package(self) -> str:
        return self.handler.split(".")[0]

    @property
    def packages(self) -> tuple[str, ...]:
        """The packages its artifact holds: its handler's, and any other its build adds
        (functions/Makefile, the one place that says)."""
        return artifact_packages().get(self.name, (self.package,))


class _Locally:
    """Evaluates the template's intrinsic functions with local values."""

    def __init__(self, urls: Mapping[str, str], region: str, refs: Mapping[str, str]):
        loaded = template.load()
        self.resources = loaded["Resources"]
        self.parameters = {
            name: str(LOCAL_PARAMETERS.get(name, spec.get("Default", "")))
            for name, spec in loaded.get("Parameters", {}).items()
        }
        self.conditions = loaded.get("Conditions", {})
        self.urls, self.region, self.refs = urls, region, refs

    def condition(self, name: str) -> bool:
        return bool(self.value(self.conditions[name]))

    def _substituted(self, name: re.Match) -> str:
        """A Fn::Sub's ${Name}: the region, or a resource's local id (Ref); else as is."""
        if name[1] == "AWS::Region" or name[1] in self.resources:
            found = self.value({"Ref": name[1]})
            return found if isinstance(found, str) else name[0]
        return name[0]

    def value(self, node):
        """The local value of `node`; None where nothing stands locally for it."""
        if not isinstance(node, dict):
            return node
        ((function, argument),) = node.items()
        if function == "Ref":
            return self._ref(argument)
        if function == "Condition":
            return self.condition(argument)
        if function == "Fn::If":
            name, when_true, when_false = argument
            return self.value(when_true if self.condition(name) else when_false)
        if function in _LOGICAL:
            return self._logical(function, argument)
        if function == "Fn::GetAtt":
            return argument[0]  # a queue's or function's ARN: its logical id locally
        if function == "Fn::Sub" and isinstance(argument, str):
            api = _API_URL.match(argument)
            if api and api[1] in self.urls:
                return self.urls[api[1]]
            text = re.sub(r"\$\{([\w:]+)\}", self._substituted, argument)
            if "${" not in text:
                return text
        raise ValueError(f"no local value for {node}")

    def _ref(self, name: str):
        """A pseudo parameter's, a parameter's or a resource's local value: a resource is
        named by its logical id, and a secret stands for nothing locally."""
        if name == "AWS::NoValue":
            return None
        if name == "AWS::Region":
            return self.region
        if name in self.parameters:
            return self.parameters[name]
        if name in self.refs:
            return self.refs[name]
        if name.endswith(ALIAS):
            # A function's alias (AutoPublishAlias): locally there are no versions, and
            # the local Lambda service runs the function under its name, qualified or not.
            return f"{name.removesuffix(ALIAS)}:{ALIAS_NAME}"
        kind = self.resources[name]["Type"]
        if kind == "AWS::KMS::Key":
            return template.key_alias(name)  # the emulator makes it under its alias
        return None if kind == "AWS::SecretsManager::Secret" else name

    def _logical(self, function: str, argument: list) -> bool:
        """A condition function (_LOGICAL) of the local values of its arguments."""
        if function == "Fn::Equals":
            return str(self.value(argument[0])) == str(self.value(argument[1]))
        if function == "Fn::Not":
            return not self.value(argument[0])
        if function == "Fn::Or":
            return any(self.value(item) for item in argument)
        return all(self.value(item) for item in argument)  # Fn::And


_BUILD = re.compile(r"^build-(\w+):\n\t\$\(call PACKAGE,([^)]*)\)", re.M)


@functools.cache
def artifact_packages() -> dict[str, tuple[str, ...]]:
    """{function: the packages `sam build` puts in its artifact}, read off
    functions/Makefile's build targets."""
    text = (ROOT / "functions" / "Makefile").read_text(encoding="utf-8")
    return {name: tuple(packages.split()) for name, packages in _BUILD.findall(text)}


def _rate_seconds(expression: str) -> float:
    rate = re.fullmatch(r"rate\((\d+) (minutes?|hours?|days?)\)", expression)
    if rate is None:
        raise ValueError(f"a schedule the local stack cannot run: {expression}")
    number, unit = rate.groups()
    return int(number) * {"m": 60, "h": 3600, "d": 86400}[unit[0]]


def functions(
    urls: Mapping[str, str],
    region: str,
    base_env: Mapping[str, str],
    environ: Mapping[str, str] = os.environ,
    max_environments: int | None = None,
    refs: Mapping[str, str] | None = None,
) -> dict[str, FunctionSpec]:
    """Every function of the template (of those this stack has), by logical id. `urls`:
    the local address of each API (its logical id); `base_env`: what every function
    gets besides its own (the emulators' endpoints, credentials); `max_environments`:
    no function gets more environments than this (LAMBDA_MAX_ENVIRONMENTS, for a
    laptop short of memory: each is a process of about 50 MiB); `refs`: the local id of
    a resource the emulator made (the user pool and its client, by logical id)."""
    local = _Locally(urls, region, refs or {})
    loaded = template.load()
    defaults = loaded["Globals"]["Function"]
    layers = {
        name: ROOT / "infra" / res["Properties"]["ContentUri"]
        for name, res in template.resources("AWS::Serverless::LayerVersion").items()
    }
    found = {}
    for name, resource in template.resources("AWS::Serverless::Function").items():
        if "Condition" in resource and not local.condition(resource["Condition"]):
            continue
        props = resource["Properties"]
        env = _environment(props, defaults, local, environ)
        reserved = local.value(props.get("ReservedConcurrentExecutions"))
        found[name] = FunctionSpec(
            name=name,
            handler=props["Handler"],
            code_dir=(ROOT / "infra" / props["CodeUri"]).resolve(),
            layer_dirs=tuple(
                layers[layer].resolve()
                for layer in template.function_layers(name, _true_conditions(local))
                if layer in layers
            ),
            environment={
                **base_env,
                **env,
                "POWERTOOLS_SERVICE_NAME": env.get("POWERTOOLS_SERVICE_NAME", name),
            },
            timeout_seconds=float(props.get("Timeout", defaults["Timeout"])),
            memory_mb=int(props.get("MemorySize", defaults["MemorySize"])),
            concurrency=_capped(
                int(reserved) if reserved else DEFAULT_CONCURRENCY, max_environments
            ),
            # LAMBDA_MAX_ENVIRONMENTS is every environment a function may have, those for
            # other functions' calls included: memory before waiting.
            scales=not reserved and max_environments is None,
            asynchronous=_async_config(props, local),
            schedules_seconds=_schedules_seconds(props),
            event_sources=_event_sources(name, props, local),
        )
    return found


def _environment(
    props: Mapping, defaults: Mapping, local: _Locally, environ: Mapping[str, str]
) -> dict[str, str]:
    """A function's own variables (the template's Globals, then its own) with their local
    values, those that have one; then any platform variable set in `environ`."""
    own = {
        **defaults.get("Environment", {}).get("Variables", {}),
        **props.get("Environment", {}).get("Variables", {}),
    }
    env = {key: str(value) for key, raw in own.items() if (value := local.value(raw)) is not None}
    env.update({key: environ[key] for key in VARIABLES if key in environ})
    return env


def _async_config(props: Mapping, local: _Locally) -> AsyncConfig:
    """Its EventInvokeConfig, Lambda's defaults for what it leaves out."""
    config = props.get("EventInvokeConfig", {})
    on_failure = config.get("DestinationConfig", {}).get("OnFailure", {})
    return AsyncConfig(
        retries=int(config.get("MaximumRetryAttempts", 2)),
        max_age_seconds=int(config.get("MaximumEventAgeInSeconds", 6 * 3600)),
        on_failure=local.value(on_failure["Destination"]) if on_failure else None,
    )


def _schedules_seconds(props: Mapping) -> tuple[float, ...]:
    """How often each of its Schedule events runs it."""
    return tuple(
        _rate_seconds(event["Properties"]["Schedule"])
        for event in props.get("Events", {}).values()
        if event["Type"] == "Schedule"
    )


# SAM's event types that are event source mappings, and the property naming the source.
_MAPPED_EVENTS = {"SQS": "Queue", "DynamoDB": "Stream"}


def _event_sources(name: str, props: Mapping, local: _Locally) -> tuple[EventSource, ...]:
    """The function's event source mappings: the template's AWS::Lambda::EventSourceMapping
    resources that name it, and its SAM events that make one."""
    mapped = [
        mapping["Properties"]
        for mapping in template.resources("AWS::Lambda::EventSourceMapping").values()
        if mapping["Properties"].get("FunctionName") == {"Ref": name}
    ]
    mapped += [
        {**event["Properties"], "EventSourceArn": event["Properties"][_MAPPED_EVENTS[kind]]}
        for event in props.get("Events", {}).values()
        if (kind := event["Type"]) in _MAPPED_EVENTS
    ]
    return tuple(_event_source(mapping, local) for mapping in mapped)


def _event_source(mapping: Mapping, local: _Locally) -> EventSource:
    source = local.value(mapping["EventSourceArn"])  # GetAtt: the queue's or table's id
    kind = "SQS" if local.resources[source]["Type"] == "AWS::SQS::Queue" else "DynamoDB"
    on_failure = mapping.get("DestinationConfig", {}).get("OnFailure", {})
    return EventSource(
        kind=kind,
        source=source,
        batch_size=int(mapping.get("BatchSize", 10 if kind == "SQS" else 100)),
        batching_window_seconds=float(mapping.get("MaximumBatchingWindowInSeconds", 0)),
        reports_failures="ReportBatchItemFailures" in mapping.get("FunctionResponseTypes", []),
        starting_position=mapping.get("StartingPosition", "LATEST"),
        bisect_on_error=bool(mapping.get("BisectBatchOnFunctionError", False)),
        retries=int(mapping.get("MaximumRetryAttempts", -1)),
        max_record_age_seconds=int(mapping.get("MaximumRecordAgeInSeconds", -1)),
        on_failure=local.value(on_failure["Destination"]) if on_failure else None,
        max_concurrency=_maximum(
            local.value(mapping.get("ScalingConfig", {}).get("MaximumConcurrency"))
        ),
    )


def _maximum(value) -> int | None:
    """A mapping's ScalingConfig.MaximumConcurrency, as its local value (a parameter's)."""
    return None if value is None else int(value)


def _capped(concurrency: int, cap: int | None) -> int:
    if cap is None:
        return concurrency
    if cap < 1:
        raise ValueError(f"a function needs at least one environment, not {cap}")
    return min(concurrency, cap)


def _true_conditions(local: _Locally) -> frozenset[str]:
    return frozenset(name for name in local.conditions if local.condition(name))
