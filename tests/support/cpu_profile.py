"""Where a run's CPU goes, test by test: an opt-in pytest plugin, and its summary.

    PYTEST_ADDOPTS="-p tests.support.cpu_profile" make test
    .venv/bin/python -m tests.support.cpu_profile

Wall time on two shared cores is mostly waiting for a core, so a slow test by the clock
is often one that ran beside busy ones; CPU is what a test costs whoever runs beside it.
Each test's is the CPU over its setup, call and teardown of this process and of every
process under it (the stacks and the functions they run, Chromium, the release's tools),
read from /proc before and after: a stack's work is charged to the tests it served while
they ran, whichever started it; a process that ended unwaited-for between the two reads
is missed. Each xdist worker writes its own
file under TEST_CPU_PROFILE (default `.cpu-profile/`)."""

import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

DIRECTORY = Path(os.environ.get("TEST_CPU_PROFILE", ".cpu-profile"))


def _cpu() -> tuple[float, float]:
    """This process's CPU, and that of every process under it, living or waited for (a
    stack's CPU is seen as it serves, not only once it is stopped)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # it ended meanwhile
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        ticks[pid] = sum(int(field) for field in fields[11:15])  # utime stime cutime cstime
    below, frontier = 0, [os.getpid()]
    children: dict[int, list[int]] = defaultdict(list)
    for pid, parent in parents.items():
        children[parent].append(pid)
    while frontier:
        for child in children.get(frontier.pop(), ()):
            below += ticks.get(child, 0)
            frontier.append(child)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    hertz = os.sysconf("SC_CLK_TCK")
    return own.ru_utime + own.ru_stime, waited.ru_utime + waited.ru_stime + below / hertz


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    (own, waited), started = _cpu(), time.perf_counter()
    try:
        return (yield)
    finally:
        (own_after, waited_after), wall = _cpu(), time.perf_counter() - started
        DIRECTORY.mkdir(exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with (DIRECTORY / f"{worker}.tsv").open("a", encoding="utf-8") as out:
            out.write(
                f"{item.nodeid}\t{own_after - own:.3f}\t{waited_after - waited:.3f}\t{wall:.3f}\n"
            )


def summary(directory: Path, top: int = 20) -> str:
    tests: dict[str, tuple[float, float, float]] = {}
    for path in sorted(directory.glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            nodeid, own, waited, wall = line.rsplit("\t", 3)
            tests[nodeid] = (float(own), float(waited), float(wall))
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    folders: dict[str, float] = defaultdict(float)
    for nodeid, (own, waited, wall) in tests.items():
        name = nodeid.split("::", 1)[0]
        total = files[name]
        total[0], total[1], total[2], total[3] = (
            total[0] + own,
            total[1] + waited,
            total[2] + wall,
            total[3] + 1,
        )
        folders[name.rsplit("/", 1)[0]] += own + waited
    cpu = sum(own + waited for own, waited, _ in tests.values())
    lines = [f"{len(tests)} tests, {cpu:.0f} s of CPU", "", "| folder | CPU s |", "|---|---|"]
    lines += [f"| {name} | {s:.0f} |" for name, s in sorted(folders.items(), key=lambda x: -x[1])]
    lines += [
        "",
        "| file | tests | CPU s | of it waited-for processes | wall s |",
        "|---|---|---|---|---|",
    ]
    ranked = sorted(files.items(), key=lambda x: -(x[1][0] + x[1][1]))
    for name, (own, waited, wall, count) in ranked[:top]:
        lines.append(f"| {name} | {count:.0f} | {own + waited:.0f} | {waited:.0f} | {wall:.0f} |")
    lines += ["", "| test | CPU s | wall s |", "|---|---|---|"]
    ranked_tests = sorted(tests.items(), key=lambda x: -(x[1][0] + x[1][1]))
    for nodeid, (own, waited, wall) in ranked_tests[:top]:
        lines.append(f"| {nodeid} | {own + waited:.1f} | {wall:.1f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(Path(sys.argv[1]) if len(sys.argv) > 1 else DIRECTORY))
