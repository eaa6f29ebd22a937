"""Where infra/, tests/ and bench/ reach into a library's private parts, found in their
source (tests/unit/test_private_uses.py holds each to an entry of infra/private_uses.py).

A finding is (file, text). What counts, in the syntax tree of each file:

- `x._name` on anything but `self` and `cls`: the text is the expression (`server._map`),
  unless `x` is one of our own objects (OWN) or the name is a documented one (DOCUMENTED);
- in a class whose base is a library's, or a function whose `self` is annotated with a
  library's class: `self._name` or `def _name` where the library's class has that name
  (`ApiGatewayLocalGateway._authorizer`), and, for an annotated `self`, any attribute
  set or deleted on it (`Table.all_items`);
- an attribute set or deleted on a name imported from a library (`Table.query`,
  `chalice.local.LocalGateway`), or through `setattr`/`monkeypatch.setattr` on one
  (`BaseClient._make_api_call`, `Connection.client`);
- an import of a library's module below its top level that PUBLIC does not name: the
  module (`moto.dynamodb.models.table`, `waitress.channel`).

A library is a package installed in the venv (not the standard library, not ours).
Source inside strings (bench's probe scripts) is not read.
"""

import ast
import contextlib
import importlib
import importlib.util
import inspect
import re
import sys
import sysconfig
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("infra", "tests", "bench")
SITE_PACKAGES = Path(sysconfig.get_paths()["purelib"]).resolve()

# Modules below a library's top level that the library documents as its API (`x.*`: a
# package and all of its modules), each with where. Anything else imported from below a
# library's top level is a private use.
PUBLIC = {
    "boto3.dynamodb.types": "boto3's reference: TypeSerializer, TypeDeserializer",
    "botocore.config": "botocore's reference: Config",
    "botocore.exceptions": "botocore's reference: ClientError and the rest",
    "botocore.session": "botocore's reference: Session",
    "cryptography.hazmat.*": "cryptography's documented hazmat layer",
    "cryptography.x509.*": "cryptography's documented X.509 API: certificates, names, OIDs",
    "hypothesis.errors": "Hypothesis's documented exceptions: Unsatisfiable, ...",
    "hypothesis.strategies": "Hypothesis's documented strategies",
    "joserfc.jwk": "joserfc's documented JWK API: RSAKey (generate, import, export)",
    "joserfc.jwt": "joserfc's documented JWT API: encode, decode",
    "playwright.sync_api": "Playwright's documented synchronous API",
    "pynamodb.*": "PynamoDB's API reference: models, attributes, indexes, connection, ...",
    "requests.adapters": "requests' documented transport adapters: HTTPAdapter and its "
    "init_poolmanager (the advanced usage's own example)",
    "schemathesis.checks": "schemathesis's documented built-in checks",
    "werkzeug.serving": "Werkzeug's documented serving API: make_server",
}
# Objects of our own whose private names tests reach for, by file: not a library's.
OWN = {
    # common.stock.client.StockClient; stock_repair.repair.Repair
    "tests/integration/test_stock_follows_orders.py": {"moves", "repair"},
    # orders.repository.OrderRepository (its common.storage.id_blocks.IdBlocks' clock)
    "tests/integration/test_sharded_lists.py": {"environment", "blocks"},
    "tests/support/fake_lambda.py": {"lam"},  # the fake Lambda service
    "tests/support/fakes.py": {"scripted"},  # the scripted fake service
    "tests/support/memory.py": {"products"},  # InMemoryProducts
    "tests/unit/test_cold_start.py": {"aws"},  # common.platform.aws
    "tests/unit/test_local_pool.py": {"pool"},  # infra/local/lambdas.py's Pool
    "tests/unit/test_openapi.py": {"creating"},  # common.http.creating
    "tests/integration/test_local_streams.py": {"emulator"},  # infra/local/emulator.py's
    # infra/local/emulator.py's Emulator, and its AtomicPerTable
    "tests/integration/test_sign_in_routes.py": {"emulator", "app"},
    "tests/support/webhook_receiver.py": {"receiver"},  # its own Receiver
}
# Names that start with `_` and are documented: namedtuple's methods, os._exit.
DOCUMENTED = {"_replace", "_asdict", "_fields", "_make", "_exit"}


# The registry itself: its checks reach for every name it lists, on purpose.
REGISTRY = ROOT / "infra" / "private_uses.py"


def sources() -> Iterator[Path]:
    for folder in SCANNED:
        yield from (path for path in sorted((ROOT / folder).rglob("*.py")) if path != REGISTRY)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@cache
def _is_library(module: str) -> bool:
    root = module.split(".")[0]
    if root in sys.stdlib_module_names:
        return False
    try:
        spec = importlib.util.find_spec(root)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    where = spec.origin or next(iter(spec.submodule_search_locations or []), "")
    return where not in ("", "built-in") and Path(where).resolve().is_relative_to(SITE_PACKAGES)


@cache
def _is_module(name: str) -> bool:
    """Whether a library's dotted name is a module, from its files (importing a package
    to ask would cost seconds for some)."""
    root, *rest = name.split(".")
    spec = importlib.util.find_spec(root)
    folders = list(spec.submodule_search_locations or []) if spec else []
    return any(
        Path(folder, *rest).with_suffix(".py").is_file()
        or Path(folder, *rest, "__init__.py").is_file()
        for folder in folders
    )


def _imports(tree: ast.Module) -> tuple[dict[str, str], list[str]]:
    """{name bound in the file: the library object's dotted path} for names a library's
    import binds, and the library modules imported below their top level."""
    bound: dict[str, str] = {}
    modules: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_library(alias.name):
                    bound[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
                    modules.append(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not _is_library(node.module):
                continue
            for alias in node.names:
                path = f"{node.module}.{alias.name}"
                bound[alias.asname or alias.name] = path
                modules.append(path if _is_module(path) else node.module)
    below_top = [m for m in dict.fromkeys(modules) if "." in m and not _public(m)]
    return bound, below_top


def _public(module: str) -> bool:
    return module in PUBLIC or any(
        name.endswith(".*") and (module + ".").startswith(name[:-1]) for name in PUBLIC
    )


@cache
def _library_object(path: str) -> object | None:
    module, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        try:
            return importlib.import_module(path)
        except ImportError:
            return None


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


@cache
def _library_names(cls: type) -> frozenset[str]:
    """The names a library's class and its library bases define or set on self."""
    names = set(dir(cls))
    for klass in cls.__mro__:
        if _is_library(klass.__module__):
            with contextlib.suppress(OSError, TypeError):
                names |= set(re.findall(r"self\.(\w+)", inspect.getsource(klass)))
    return frozenset(names)


def _library_bases(node: ast.ClassDef, bound: dict[str, str]) -> list[type]:
    bases = []
    for base in node.bases:
        name = _root(base)
        if name in bound:
            obj = _library_object(bound[name] + ast.unparse(base)[len(name) :])
            if isinstance(obj, type):
                bases.append(obj)
    return bases


def _annotated_self(node: ast.FunctionDef, bound: dict[str, str]) -> tuple[str, type] | None:
    args = node.args.posonlyargs + node.args.args
    if not args or args[0].arg != "self" or args[0].annotation is None:
        return None
    label = ast.unparse(args[0].annotation)
    name = _root(args[0].annotation)
    obj = _library_object(bound[name] + label[len(name) :]) if name in bound else None
    return (label, obj) if isinstance(obj, type) else None


def _on_self(body: ast.AST, label: str, names: frozenset[str], all_set: bool) -> set[str]:
    found = set()
    for node in ast.walk(body):
        if isinstance(node, ast.FunctionDef) and _private(node.name) and node.name in names:
            found.add(f"{label}.{node.name}")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id != "self":
                continue
            setting = isinstance(node.ctx, ast.Store | ast.Del)
            if (_private(node.attr) and node.attr in names) or (all_set and setting):
                found.add(f"{label}.{node.attr}")
    return found


def _set_on_library(tree: ast.Module, bound: dict[str, str]) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            if isinstance(target, ast.Attribute) and _root(target) in bound:
                found.add(ast.unparse(target))
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name not in ("setattr", "delattr"):
                continue
            owner, attribute = node.args[0], node.args[1]
            if isinstance(owner, ast.Constant) and isinstance(owner.value, str):
                if _is_library(owner.value):
                    found.add(owner.value)
            elif _root(owner) in bound and isinstance(attribute, ast.Constant):
                found.add(f"{ast.unparse(owner)}.{attribute.value}")
    return found


def findings(path: Path) -> set[str]:
    """The texts of the private uses in one file (see the module's text)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    relative = path.relative_to(ROOT).as_posix()
    bound, modules = _imports(tree)
    found = set(modules) | _set_on_library(tree, bound)
    own = OWN.get(relative, set())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            receiver = ast.unparse(node.value)
            ours = receiver in ("self", "cls", "super()", *own)
            if not ours and node.attr not in DOCUMENTED:
                found.add(ast.unparse(node))
        elif isinstance(node, ast.ClassDef):
            for base in _library_bases(node, bound):
                found |= _on_self(node, node.name, _library_names(base), all_set=False)
        elif isinstance(node, ast.FunctionDef):
            annotated = _annotated_self(node, bound)
            if annotated is not None:
                label, cls = annotated
                found |= _on_self(node, label, _library_names(cls), all_set=True)
    return found


def all_findings() -> dict[str, set[str]]:
    """{file, relative to the checkout: its findings}, for the files that have any."""
    every = {path.relative_to(ROOT).as_posix(): findings(path) for path in sources()}
    return {path: found for path, found in every.items() if found}
