"""Rerunnable benchmark: what tracing costs a cold start, X-Ray's SDK against OpenTelemetry.

Usage: `make bench-tracing` (or .venv/bin/python bench/tracing.py [--runs N]). Offline
but for one install: it makes a scratch venv (deleted at the end) holding the runtime
lock (requirements.txt, hash-checked) and, beside it, the OpenTelemetry packages below,
which are the bench's alone and never in a lock. Then each round starts a fresh `python
-I` interpreter per setup, in turn, and times its imports and setup:

- baseline: `import chalice, boto3` (bench/cold_start.py's baseline);
- X-Ray: the baseline, then Powertools' Tracer as common/platform/tracing.py builds it on Lambda
  (the X-Ray SDK, botocore patched);
- OpenTelemetry: the baseline, then the SDK's TracerProvider with X-Ray's trace ids,
  a batch processor and the OTLP/HTTP exporter, X-Ray's propagator, and botocore
  instrumented: a hand-made setup of what the ADOT layer sets up;
- OpenTelemetry, auto: the baseline, then `opentelemetry-instrument`'s initialization
  (what the ADOT layer's wrapper runs: configuration from the environment, every
  instrumentor installed, found through the packages' entry points).

Nothing is sent: the exporters point at 127.0.0.1 and no span ends. The first round
writes the bytecode and is not counted; every ratio is taken within a round (paired),
and the table gives medians. Also printed: what the OpenTelemetry packages would add to
the layer, in MB of files without bytecode. Times are given twice: the interpreter's CPU
time, which other work on a shared machine moves least, and the wall clock.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UV = ROOT / ".venv" / "bin" / "uv"
# The bench's own packages: one release line of the SDK and of its contrib packages.
OPENTELEMETRY = [
    "opentelemetry-sdk==1.45.2",
    "opentelemetry-exporter-otlp-proto-http==1.45.2",
    "opentelemetry-instrumentation-botocore==0.66b2",
    "opentelemetry-propagator-aws-xray==1.0.2",
    "opentelemetry-sdk-extension-aws==2.1.0",
    # The auto setup's configurator: the SDK set up from OTEL_* variables.
    "opentelemetry-distro==0.66b2",
]
SETUPS = ("baseline", "X-Ray", "OpenTelemetry", "OpenTelemetry, auto")
PROBE = """
import json, sys, time
started, cpu = time.perf_counter(), time.process_time()
import chalice, boto3
setup = sys.argv[1]
if setup == "X-Ray":
    from aws_lambda_powertools.tracing.tracer import Tracer
    Tracer(patch_modules=("botocore",))
elif setup == "OpenTelemetry":
    from opentelemetry import propagate, trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
    from opentelemetry.propagators.aws import AwsXRayPropagator
    from opentelemetry.sdk.extension.aws.trace import AwsXRayIdGenerator
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    provider = TracerProvider(resource=Resource.create({"service.name": "bench"}),
                              id_generator=AwsXRayIdGenerator())
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    propagate.set_global_textmap(AwsXRayPropagator())
    BotocoreInstrumentor().instrument()
elif setup == "OpenTelemetry, auto":
    from opentelemetry.instrumentation.auto_instrumentation import initialize
    initialize()
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
# Each setup did what it is timed for: botocore's calls would be traced.
if setup == "X-Ray":
    from aws_xray_sdk.core import patcher
    assert "botocore" in patcher._PATCHED_MODULES
elif setup != "baseline":
    from opentelemetry import trace
    from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
    assert BotocoreInstrumentor().is_instrumented_by_opentelemetry, setup
    assert type(trace.get_tracer_provider()).__name__ == "TracerProvider", setup
print(json.dumps({"seconds": seconds, "cpu": cpu}))
"""
# What Lambda sets that turns tracing on, and where each exporter would send: nowhere.
ENV = {
    "LAMBDA_TASK_ROOT": "/var/task",
    "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:9",
    "AWS_DEFAULT_REGION": "us-east-1",
    "POWERTOOLS_SERVICE_NAME": "bench",
    "OTEL_SERVICE_NAME": "bench",
    "OTEL_TRACES_EXPORTER": "otlp",
    "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
    "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
    "OTEL_METRICS_EXPORTER": "none",
    "OTEL_LOGS_EXPORTER": "none",
    "OTEL_PROPAGATORS": "xray",
    "OTEL_PYTHON_ID_GENERATOR": "xray",
}


def install(venv: Path) -> None:
    python = sys.base_prefix + "/bin/python3.13"
    quiet = {"stdout": subprocess.DEVNULL, "check": True}
    subprocess.run([str(UV), "venv", "--quiet", "--python", python, str(venv)], **quiet)
    target = ["--python", str(venv / "bin" / "python")]
    subprocess.run(
        [
            str(UV),
            "pip",
            "sync",
            "--quiet",
            "--require-hashes",
            *target,
            str(ROOT / "requirements.txt"),
        ],
        **quiet,
    )
    # At the runtime lock's versions, so both setups share every package they have in common.
    subprocess.run(
        [
            str(UV),
            "pip",
            "install",
            "--quiet",
            *target,
            "-c",
            str(ROOT / "requirements.txt"),
            *OPENTELEMETRY,
        ],
        **quiet,
    )


def probe(venv: Path, setup: str) -> dict[str, float]:
    result = subprocess.run(
        [str(venv / "bin" / "python"), "-I", "-c", PROBE, setup],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ["PATH"], **ENV},
    )
    if result.returncode:
        raise RuntimeError(f"{setup}: {result.stderr}")
    return json.loads(result.stdout.splitlines()[-1])


def added_megabytes(venv: Path) -> float:
    """The files of the packages the OpenTelemetry install brought beyond the runtime."""
    code = (
        "import json, sys\nfrom importlib.metadata import distributions\n"
        "print(json.dumps({d.metadata['Name']: sum((d.locate_file(f).stat().st_size\n"
        "    for f in d.files or [] if not str(f).endswith('.pyc')), 0)\n"
        "    for d in distributions()}))"
    )
    sizes = json.loads(
        subprocess.run(
            [str(venv / "bin" / "python"), "-I", "-c", code],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    runtime = {
        line.split("==")[0].lower()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if "==" in line and not line.startswith(("#", " "))
    }
    return (
        sum(size for name, size in sizes.items() if name.lower().replace("_", "-") not in runtime)
        / 2**20
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-tracing-") as scratch:
        venv = Path(scratch) / "venv"
        install(venv)
        for setup in SETUPS:  # writes the bytecode: not counted
            probe(venv, setup)
        rounds = []
        for number in range(args.runs):
            # Each round in another order, so no setup always runs first or last.
            order = SETUPS[number % len(SETUPS) :] + SETUPS[: number % len(SETUPS)]
            rounds.append({setup: probe(venv, setup) for setup in order})
        added = added_megabytes(venv)

    for clock, title in (
        ("cpu", "CPU time (the interpreter's own: what the load of a shared machine moves least)"),
        ("seconds", "wall-clock time"),
    ):

        def median(value, clock=clock) -> float:
            return statistics.median(value({s: r[s][clock] for s in r}) for r in rounds)

        print(
            f"\n{title}; medians of {args.runs} rounds, each ratio and difference paired "
            "within a round:\n"
        )
        print(
            "| setup | import + setup ms | vs baseline | vs X-Ray | above the baseline ms |\n"
            "|---|---|---|---|---|"
        )
        for setup in SETUPS:
            above = (
                "-"
                if setup == "baseline"
                else f"{median(lambda r, s=setup: r[s] - r['baseline']) * 1000:.0f}"
            )
            print(
                f"| {setup} | {median(lambda r, s=setup: r[s]) * 1000:.0f} | "
                f"{median(lambda r, s=setup: r[s] / r['baseline']):.2f}x | "
                f"{median(lambda r, s=setup: r[s] / r['X-Ray']):.2f}x | {above} |"
            )
    print(
        f"\nThe OpenTelemetry packages beyond the runtime: {added:.1f} MB of files "
        "(without bytecode)."
    )


if __name__ == "__main__":
    main()
