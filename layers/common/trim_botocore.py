"""Build step of the layer (layers/common/Makefile): botocore's data for the operations the
functions call (common.platform.aws.OPERATIONS), and nothing else.

botocore ships the models of every AWS service (25 MB) and reads, when a client is
built, `endpoints.json` (1.2 MB, every service in every partition) and the service's
whole model. A function builds its clients during its cold start, so what it parses
there is paid by every cold start. Here the other services go; each kept service keeps
its newest API version, only the operations listed and the shapes they reach, without
documentation; `endpoints.json` keeps the services kept; files are stored uncompressed
(inflating them is part of the cold start too); examples, paginators and waiters, which
the functions never use, go.

Usage: PYTHONPATH=LAYER_DIR python trim_botocore.py LAYER_DIR
"""

import gzip
import json
import shutil
import sys
from pathlib import Path

_UNUSED = ("examples-1", "paginators-1", "paginators-1.sdk-extras", "waiters-2")


def _load(path: Path):
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            return json.load(handle)
    return json.loads(path.read_text(encoding="utf-8"))


def _store(path: Path, data) -> None:
    """Write `data` as plain JSON next to `path`, in place of it."""
    plain = path.with_suffix("") if path.suffix == ".gz" else path
    path.unlink()
    plain.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")


def _undocumented(value):
    if isinstance(value, dict):
        return {
            key: _undocumented(item)
            for key, item in value.items()
            if key not in ("documentation", "documentationUrl")
        }
    if isinstance(value, list):
        return [_undocumented(item) for item in value]
    return value


def _reached(model: dict, operations: dict) -> set[str]:
    """The shapes the operations' inputs, outputs and errors refer to, transitively."""
    pending = [
        ref["shape"]
        for operation in operations.values()
        for ref in [operation.get("input"), operation.get("output"), *operation.get("errors", [])]
        if ref
    ]
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name in reached:
            continue
        reached.add(name)
        shape = model["shapes"][name]
        pending += [shape[part]["shape"] for part in ("member", "key", "value") if part in shape]
        pending += [member["shape"] for member in shape.get("members", {}).values()]
    return reached


def trim_model(model: dict, keep: frozenset[str]) -> dict:
    missing = keep - model["operations"].keys()
    if missing:
        raise SystemExit(f"{model['metadata']['serviceId']} has no operation {sorted(missing)}")
    operations = {name: spec for name, spec in model["operations"].items() if name in keep}
    shapes = _reached(model, operations)
    return _undocumented(
        {
            **model,
            "operations": operations,
            "shapes": {name: shape for name, shape in model["shapes"].items() if name in shapes},
        }
    )


def trim(layer: Path, operations: dict[str, frozenset[str]]) -> None:
    data = layer / "botocore" / "data"
    for entry in data.iterdir():
        if entry.is_dir() and entry.name not in operations:
            shutil.rmtree(entry)
    missing = operations.keys() - {entry.name for entry in data.iterdir() if entry.is_dir()}
    if missing:
        raise SystemExit(f"botocore has no model for {sorted(missing)}")
    for service, keep in operations.items():
        versions = sorted(path for path in (data / service).iterdir() if path.is_dir())
        for old in versions[:-1]:  # botocore only ever loads the newest
            shutil.rmtree(old)
        for path in versions[-1].iterdir():
            name = path.name.removesuffix(".gz").removesuffix(".json")
            if name in _UNUSED:
                path.unlink()
            elif name == "service-2":
                _store(path, trim_model(_load(path), keep))
            else:
                _store(path, _load(path))
    endpoints = data / "endpoints.json"
    known = _load(endpoints)
    for partition in known["partitions"]:
        partition["services"] = {
            name: spec for name, spec in partition["services"].items() if name in operations
        }
    _store(endpoints, known)


if __name__ == "__main__":
    from common.platform.aws import OPERATIONS  # the layer's own copy, on PYTHONPATH

    trim(Path(sys.argv[1]), OPERATIONS)
