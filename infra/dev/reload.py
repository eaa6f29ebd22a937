"""Which files of the apps' code changed since the last look: `make run` restarts the apps
on a change (RELOAD=1), while the data, held by the emulator, stays.

Modification times are polled: no dependency, and it sees changes on every filesystem
(mounted folders included, where change notifications often never arrive). Two folders
of a few dozen files each take well under a millisecond to look at.
"""

import contextlib
import os
from pathlib import Path

# The apps' code: the services, the shared layer, and the gateway app that mounts them.
WATCHED = ("functions", "layers", "app.py")
POLL_SECONDS = 0.5


class CodeWatcher:
    def __init__(self, root: Path):
        self.root = root
        self._seen = self._look()

    def _files(self):
        for name in WATCHED:
            top = self.root / name
            if top.is_file():
                yield top
                continue
            for folder, folders, files in os.walk(top):
                folders[:] = [f for f in folders if f != "__pycache__" and not f.startswith(".")]
                yield from (Path(folder) / f for f in files if not f.endswith(".pyc"))

    def _look(self) -> dict[str, int]:
        found = {}
        for path in self._files():
            # A file removed between the listing and the look is simply gone.
            with contextlib.suppress(FileNotFoundError):
                found[str(path.relative_to(self.root))] = path.stat().st_mtime_ns
        return found

    def changed(self) -> list[str]:
        """The files added, removed or modified since the last call (or the start)."""
        now = self._look()
        differ = sorted(
            path for path in now.keys() | self._seen.keys() if now.get(path) != self._seen.get(path)
        )
        self._seen = now
        return differ
