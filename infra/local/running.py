"""Where the local stack runs, for the tools beside it (`make user`, `make token`, `make
seed`, `make dead-letters`, the backfills): whatever ports it chose.

While it runs, a stack with a data directory says where it is in RUNNING_FILE there (its
URLs, its process, the id of the key it signs tokens with), and removes it when it stops;
a file left by a stack that died names a process that is gone, and is ignored. A tool
finds the stack by the data directory it is told (LOCAL_DATA_DIR, as the stack was), so
a stack on ports the kernel chose (`DYNAMODB_PORT=0`) is found as one on the defaults.
A port given to the tool (DYNAMODB_PORT=8102) is taken as given; with neither, the
default ports. A stack with its data in memory writes nothing: give the tool its ports,
or use the token it printed.
"""

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from infra.local.settings import DEFAULT_PORTS, local_data_dir

RUNNING_FILE = "stack.json"
FORMAT = "logistics-local-stack/1"


@dataclass(frozen=True)
class RunningStack:
    pid: int
    dynamodb_url: str
    lambda_url: str
    notification_url: str
    gateway_url: str | None  # None: `make emulators`
    key_id: str  # the `kid` of the HS256 key its tokens are signed with


def announce(data_dir: Path, stack: RunningStack) -> None:
    """Say where the stack runs, in its data directory (replaced atomically)."""
    path = data_dir / RUNNING_FILE
    aside = path.with_name(f".{RUNNING_FILE}.{os.getpid()}")
    aside.write_text(json.dumps({"format": FORMAT, **asdict(stack)}) + "\n", encoding="utf-8")
    os.replace(aside, path)


def withdraw(data_dir: Path) -> None:
    """The stack stops: it is no longer there (the file goes if it is this process's)."""
    found = _read(data_dir / RUNNING_FILE)
    if found is not None and found.pid == os.getpid():
        (data_dir / RUNNING_FILE).unlink(missing_ok=True)


def _read(path: Path) -> RunningStack | None:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.pop("format") != FORMAT:
            return None
        return RunningStack(**document)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: there all the same
        return True
    return True


def running(env: Mapping[str, str] | None = None) -> RunningStack | None:
    """The stack running on LOCAL_DATA_DIR (None: none, or its data is in memory)."""
    data_dir = local_data_dir(env)
    if data_dir is None:
        return None
    found = _read(data_dir / RUNNING_FILE)
    return found if found is not None and _alive(found.pid) else None


def _given_port(env: Mapping[str, str], variable: str) -> int | None:
    raw = env.get(variable, "").strip()
    return int(raw) if raw.isdigit() else None


def url_of(tool: str, variable: str, env: Mapping[str, str] | None = None) -> str:
    """The URL of one of the stack's servers (DYNAMODB_PORT, LAMBDA_PORT, GATEWAY_PORT,
    NOTIFICATION_PORT): the port given, else the running stack's, else the default;
    SystemExit when the port was left to the kernel (0) and no running stack says which."""
    env = os.environ if env is None else env
    given = _given_port(env, variable)
    if given:
        return f"http://127.0.0.1:{given}"
    found = running(env)
    if found is not None:
        url = {
            "DYNAMODB_PORT": found.dynamodb_url,
            "LAMBDA_PORT": found.lambda_url,
            "NOTIFICATION_PORT": found.notification_url,
            "GATEWAY_PORT": found.gateway_url,
        }[variable]
        if url is not None:
            return url
    if given == 0:
        raise SystemExit(
            f"{tool}: {variable}=0, and no local stack runs on {local_data_dir(env)} to say "
            "which port it chose. Is it running (make run), with the same LOCAL_DATA_DIR?"
        )
    return f"http://127.0.0.1:{DEFAULT_PORTS[variable]}"
