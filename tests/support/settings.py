"""The settings' slices for tests, read as a function's init reads them: from this process's
environment (the emulators' endpoints and tables the fixtures set), with overrides."""

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common.platform.settings import AllSettings, taken_by

FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"


def every(**env: str) -> AllSettings:
    """Every slice, from the environment with `env` (variables by name) over it."""
    return AllSettings.from_env({**os.environ, **env})


def built(make: Callable, settings: AllSettings | None = None, **env: str) -> Any:
    """What `make` (a wiring's create, routes_for, a handler) builds when given the slices
    its annotations name: of `settings`, else of every(**env)."""
    settings = every(**env) if settings is None else settings
    return make(**settings.arguments(make))


def wirings() -> dict[str, object]:
    """Every function's wiring as lambda_init.start takes it, by function (a package may
    hold several: shipping's PUBLIC and LATE)."""
    found = {}
    for package in sorted(p.parent.name for p in FUNCTIONS.glob("*/wiring.py")):
        module = importlib.import_module(f"{package}.wiring")
        for wiring in (module, *vars(module).values()):
            if isinstance(getattr(wiring, "FUNCTION", None), str) and callable(
                getattr(wiring, "create", None)
            ):
                found[wiring.FUNCTION] = wiring
    return found


def slices_taken(wiring) -> list[type]:
    """The slices a function's init builds for its wiring: its create's and rehearse's."""
    rehearse = getattr(wiring, "rehearse", None)
    return [*taken_by(wiring.create).values(), *(taken_by(rehearse) if rehearse else {}).values()]
