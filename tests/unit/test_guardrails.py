"""Size and complexity guardrails on the code that runs (functions/, layers/, infra/): no
function over 60 lines, and ruff's complexity rules (C90 at 12, PLR0912, PLR0915) kept
selected, so that neither can be dropped without a test saying so. A function over them
is split into steps, not silenced."""

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("functions", "layers", "infra")
# Installed packages and build output (a layer's python/, sam's build), not our code.
NOT_OURS = {"python", "build", ".aws-sam", "site-packages"}
MAX_LINES = 60
MAX_COMPLEXITY = 12
COMPLEXITY_RULES = ("C90", "PLR0912", "PLR0915")


def sources() -> Iterator[Path]:
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if not NOT_OURS.intersection(path.relative_to(ROOT).parts[:-1]):
                yield path


def too_long(path: Path) -> Iterator[str]:
    """Each function or method of `path` longer than MAX_LINES, from its `def` line (not
    its decorators) to its last line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    # Nested ones too (a method, a function inside another), in the file's order.
    defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for node in sorted(defs, key=lambda node: node.lineno):
        assert node.end_lineno is not None  # always set by ast.parse
        length = node.end_lineno - node.lineno + 1
        if length > MAX_LINES:
            yield f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {length} lines"


def test_the_checked_folders_hold_code():
    # A folder renamed or moved would otherwise leave the length check passing on nothing.
    found = {path.relative_to(ROOT).parts[0] for path in sources()}
    assert found == set(CHECKED)


def test_no_function_is_longer_than_60_lines():
    over = [line for path in sources() for line in too_long(path)]
    assert not over, f"functions over {MAX_LINES} lines (split them):\n" + "\n".join(over)


def test_ruff_checks_complexity_branches_and_statements():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    lint = config["tool"]["ruff"]["lint"]
    selected = set(lint["select"]) | set(lint.get("extend-select", ()))
    assert set(COMPLEXITY_RULES) <= selected
    assert lint["mccabe"]["max-complexity"] == MAX_COMPLEXITY
    ignored = set(lint.get("ignore", ())) | set(lint.get("extend-ignore", ()))
    assert not ignored.intersection(COMPLEXITY_RULES)
    # Only tests and benchmarks (scripts of steps) may go without them.
    for pattern, rules in lint.get("per-file-ignores", {}).items():
        if set(rules).intersection(COMPLEXITY_RULES):
            assert pattern in {"tests/**", "bench/**"}, pattern


def test_no_benchmark_shadows_a_package_the_stack_imports():
    """`python bench/x.py` puts bench/ first on the path, so a bench/webhooks.py was what
    `import webhooks.wiring` found, and every bench that starts the stack failed."""
    ours = {
        path.name
        for folder in (ROOT / "functions", ROOT / "layers" / "common", ROOT)
        for path in folder.iterdir()
        if (path / "__init__.py").exists()
    } | {path.stem for path in ROOT.glob("*.py")}
    benches = {path.stem for path in (ROOT / "bench").glob("*.py")}
    assert not benches & ours


# -- the local stack's weight (issue 48): ratchets that only go down -----------------

# Registered uses of libraries' private parts (infra/private_uses.py) and the local stack's
# lines: neither may grow; lower each when a change takes some away. The team's targets
# are 10 and 3,000 (docs/architecture.md#the-local-stacks-weight).
# issue 55: moto's update and condition expressions parsed once (infra/local/expressions.py).
MAX_PRIVATE_USES = 37
# issue 53: a sign-in for no one costs a hash (as for someone); the gateway names itself;
# issue 55: the backfills of restored data moved to infra/dev/migrations.py;
# issue 56: a freed environment is the oldest waiter's (a carrier's burst starved one: 504s).
# issue 54: make run's banner, main loop and migrations moved out to infra/dev/;
# issue 58: the local tokens' minting, the console's pages and the code watcher moved out
# to infra/dev/ (the streams' GetRecords answered plainly, in).
MAX_LOCAL_LINES = 6000


def _imports(path: Path, package: str) -> set[str]:
    """The modules of `package` that `path` imports, anywhere in it (under TYPE_CHECKING
    and inside functions too: a cycle is a cycle to the reader)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found |= {name for name in names if name.startswith(package + ".")}
    return found


def test_no_two_modules_of_the_local_stack_import_each_other():
    folder = ROOT / "infra" / "local"
    modules = {f"infra.local.{path.stem}": path for path in folder.glob("*.py")}
    graph = {name: _imports(path, "infra.local") & set(modules) for name, path in modules.items()}

    def cycle_from(start: str) -> list[str] | None:
        path, seen = [start], set()

        def walk(node: str) -> list[str] | None:
            for nxt in sorted(graph[node]):
                if nxt == start:
                    return [*path, start]
                if nxt not in seen:
                    seen.add(nxt)
                    path.append(nxt)
                    if found := walk(nxt):
                        return found
                    path.pop()
            return None

        return walk(start)

    cycles = [found for name in sorted(graph) if (found := cycle_from(name))]
    assert not cycles, "import cycles in infra/local:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_private_uses_and_the_local_stacks_lines_do_not_grow():
    from infra.private_uses import USES

    lines = sum(
        len(path.read_text(encoding="utf-8").splitlines())
        for path in (ROOT / "infra" / "local").glob("*.py")
    )
    assert len(USES) <= MAX_PRIVATE_USES, f"{len(USES)} private uses (at most {MAX_PRIVATE_USES})"
    assert lines <= MAX_LOCAL_LINES, f"infra/local holds {lines} lines (at most {MAX_LOCAL_LINES})"


# -- the emulation's ties to the product (issue 58): a ratchet that only goes down -----

# Each (module of infra/local, product module it imports): the layer, a function's code,
# the root app, the rest of infra. Each is something the emulation should be handed (a
# hook, the template) rather than know. Lower it when a change takes some away; issue
# 58's end is none. issue 58: the local tokens' minting moved to infra/dev/tokens.py, the
# console's pages to infra/dev/console.py, the token trigger is handed in (Hooks).
MAX_PRODUCT_IMPORTS = 22


FUNCTIONS = {p.name for p in (ROOT / "functions").iterdir() if (p / "__init__.py").exists()}


def _product_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
            if node.module == "infra":
                names = [f"infra.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            ours = top in ("common", "app") or top in FUNCTIONS
            if ours or (top == "infra" and not name.startswith("infra.local")):
                found.add(name)
    return found


def test_the_emulation_knows_no_more_of_the_product_than_it_did():
    ties = sorted(
        f"{path.name} -> {name}"
        for path in (ROOT / "infra" / "local").glob("*.py")
        for name in _product_imports(path)
    )
    assert len(ties) <= MAX_PRODUCT_IMPORTS, (
        f"infra/local imports {len(ties)} product modules (at most {MAX_PRODUCT_IMPORTS}):\n"
        + "\n".join(ties)
    )
    # No function's code: the tokens a developer is given are made outside it, and the
    # pool's trigger is handed in.
    assert not [tie for tie in ties if tie.split(" -> ")[1].split(".")[0] in FUNCTIONS], ties


# -- functions never import each other (issue 48) ------------------------------------


def _function_packages() -> set[str]:
    return {path.name for path in (ROOT / "functions").iterdir() if (path / "__init__.py").exists()}


def _imported_roots(path: Path) -> set[str]:
    """The top-level packages `path` imports, anywhere in it (inside functions and under
    TYPE_CHECKING too); relative imports stay inside the package."""
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_no_function_imports_another():
    """What two functions share is a published contract in the layer (common/): a function
    importing another's package ships its code in two artifacts, and a change to one
    breaks the other at deploy time, not at review."""
    packages = _function_packages()
    crossings = [
        f"{path.relative_to(ROOT)} imports {', '.join(sorted(others))}"
        for package in sorted(packages)
        for path in sorted((ROOT / "functions" / package).rglob("*.py"))
        if (others := _imported_roots(path) & (packages - {package}))
    ]
    assert not crossings, "functions importing another's package:\n" + "\n".join(crossings)


# -- the layer in rooms (issue 54) ------------------------------------------------------

LAYER = ROOT / "layers" / "common" / "common"
# The foundation every room stands on imports no other room.
GROUND = "platform"


def _rooms() -> list[str]:
    return sorted(path.name for path in LAYER.iterdir() if (path / "__init__.py").exists())


def _room_arrows() -> dict[str, set[str]]:
    """Room -> the other rooms its modules import (anywhere in them)."""
    rooms = set(_rooms())
    imported = {
        room: {
            name.split(".")[1]
            for path in (LAYER / room).rglob("*.py")
            for name in _imports(path, "common")
        }
        for room in rooms
    }
    return {room: names & (rooms - {room}) for room, names in imported.items()}


def test_the_layer_is_a_few_rooms_and_no_loose_modules():
    """A newcomer reads one room to learn one concept: at most 10 entries at the top of
    common/, every module inside a room (docs/architecture.md#the-layers-rooms)."""
    entries = sorted(p.name for p in LAYER.iterdir() if p.name != "__pycache__")
    assert len(entries) <= 10, entries
    assert [name for name in entries if name.endswith(".py")] == ["__init__.py"]


def test_no_room_of_the_layer_imports_one_that_imports_it_back():
    arrows = _room_arrows()

    def reaches(start: str, goal: str, seen: frozenset = frozenset()) -> list[str] | None:
        for nxt in sorted(arrows[start] - seen):
            if nxt == goal:
                return [start, goal]
            if found := reaches(nxt, goal, seen | {nxt}):
                return [start, *found]
        return None

    circles = [found for room in sorted(arrows) if (found := reaches(room, room))]
    assert not circles, "rooms in a circle:\n" + "\n".join(" -> ".join(c) for c in circles)
    assert arrows[GROUND] == set(), f"{GROUND} imports {sorted(arrows[GROUND])}"


# -- settings in slices (issue 54) ------------------------------------------------------

# The most fields the notification function's wiring may read: it logs what it is sent.
NOTIFICATION_FIELDS = 5


def test_every_wirings_create_takes_slices_and_nothing_else():
    import inspect

    from common.platform.settings import SLICES, taken_by
    from tests.support.settings import wirings

    found = wirings()
    assert len(found) >= len(_function_packages())
    other = {
        function: [
            f"{name}: {hint}"
            for name, hint in inspect.get_annotations(wiring.create, eval_str=True).items()
            if name != "return" and hint not in SLICES
        ]
        + [
            name
            for name in inspect.signature(wiring.create).parameters
            if name not in taken_by(wiring.create)
        ]
        for function, wiring in found.items()
    }
    assert {function: names for function, names in other.items() if names} == {}


def test_no_code_of_the_functions_or_the_layer_takes_every_setting():
    """The whole (AllSettings) is for what reads every variable: the local stack, the
    in-process gateway. A function or a layer's constructor takes the slices it reads."""
    takers = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for folder in ("functions", "layers")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if ".venv" not in path.parts
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.arg)
        and node.annotation is not None
        and any(
            isinstance(name, ast.Name) and name.id in ("AllSettings", "Settings")
            for name in ast.walk(node.annotation)
        )
    ]
    assert takers == []


def test_the_notification_function_reads_at_most_five_fields():
    from dataclasses import fields

    from tests.support.settings import slices_taken, wirings

    slices = set(slices_taken(wirings()["NotificationFunction"]))
    assert sum(len(fields(kind)) for kind in slices) <= NOTIFICATION_FIELDS, slices
