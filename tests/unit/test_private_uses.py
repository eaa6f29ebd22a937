"""The private parts of libraries that the local stack and the tests rely on
(infra/private_uses.py): each still as we rely on it in the installed version, and none
used without an entry.

A failure names the entry, the library's installed version and what changed, e.g.
`moto 5.3.0: DynamoDBBackend.transact_write_items no longer takes (self, transact_items)
-- infra/local/emulator.py relies on it (...)`: re-check the patch there before moving
the pin."""

import json
import subprocess
import sys

import pytest

from infra import private_uses
from infra.private_uses import USES, Changed
from tests.support.private_uses import ROOT, all_findings, sources


@pytest.fixture(scope="module")
def changed() -> dict[str, str | None]:
    """What every check found, run in a process of its own: in this one the emulator's
    patches may already be in place, and a check would look at ours, not the library's."""
    result = subprocess.run(
        [sys.executable, "-m", "infra.private_uses", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # a hang detector: a loaded machine took more than 120 s
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def found() -> dict[str, set[str]]:
    return all_findings()


@pytest.mark.parametrize("use", USES, ids=[use.name for use in USES])
def test_what_a_private_use_relies_on_still_holds(use, changed):
    what = changed[use.name]
    if what is not None:
        pytest.fail(use.changed(what), pytrace=False)


def test_every_private_use_in_the_source_has_an_entry(found):
    """A new private use fails here until infra/private_uses.py lists it, with its check
    (or it is done through a public API instead)."""
    unlisted = sorted(
        f"{path}: {text}"
        for path, texts in found.items()
        for text in texts
        if not any(path in use.where and text in use.uses for use in USES)
    )
    assert not unlisted, (
        "private uses of a library with no entry in infra/private_uses.py (add one, with "
        "why no public API does it and a check; or use the public API):\n" + "\n".join(unlisted)
    )


def test_every_entry_is_still_used_where_it_says(found):
    """An entry outlives its use only until this fails: then it goes."""
    stale = []
    for use in USES:
        stale += [
            f"{use.name}: {text} is in none of {', '.join(use.where)}"
            for text in use.uses
            if not any(text in found.get(path, ()) for path in use.where)
        ]
        stale += [
            f"{use.name}: {path} no longer uses it"
            for path in use.where
            if not found.get(path, set()) & set(use.uses)
        ]
    assert not stale, "\n".join(stale)


def test_each_entry_names_an_installed_library_and_says_why_in_a_line():
    assert len({use.name for use in USES}) == len(USES)
    for use in USES:
        assert use.version()  # importlib.metadata knows the distribution
        assert use.why and "\n" not in use.why and use.uses
        assert all((ROOT / path).is_file() for path in use.where), use.where


def test_the_scan_reads_the_folders_it_names():
    # A folder renamed or moved would otherwise leave the completeness check passing.
    assert {path.relative_to(ROOT).parts[0] for path in sources()} == {"infra", "tests", "bench"}


def test_a_failure_names_the_library_its_version_and_the_patch():
    use = USES[0]
    line = use.changed("DynamoDBBackend.transact_write_items no longer takes (self)")
    assert line.startswith(f"moto {use.version()}: DynamoDBBackend.transact_write_items")
    assert use.name in line and "infra/local/emulator.py" in line


def test_the_checks_fail_on_what_they_check():
    def two(a, b):
        return a, b

    with pytest.raises(Changed, match=r"two no longer takes \(a, c\): it takes \(a, b\)"):
        private_uses.takes(two, "a", "c")
    with pytest.raises(Changed, match=r"two no longer takes only \(a\): it takes \(a, b\)"):
        private_uses.takes_only(two, "a")
    with pytest.raises(Changed, match="no longer accepts c"):
        private_uses.accepts(two, "c")
    with pytest.raises(Changed, match="has no missing"):
        private_uses.has(Changed, "args", "missing")
    with pytest.raises(Changed, match="no longer sets nothing_of_that_name"):
        private_uses.sets(Changed, "nothing_of_that_name")
    with pytest.raises(Changed, match="no longer calls b.missing"):
        private_uses.calls(two, "a, b", "b.missing(")
    with pytest.raises(Changed, match="is a int, no longer a str"):
        private_uses.is_a(1, str, "one")
