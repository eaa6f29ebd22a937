"""The emulator's tables kept on disk (LOCAL_DATA_DIR), so local data survives a restart.

moto keeps DynamoDB in memory and has no durable store, so the emulator keeps one:

- `dynamodb.json` holds every table but the write-through ones, as one consistent cut
  (taken holding the locks of the tables that changed, so a transaction over two tables
  is either in it whole or not at all). A background thread writes it at most every
  SNAPSHOT_SECONDS, when something changed, and once more when the stack stops: a
  crash loses at most the writes of the last seconds; a clean stop loses nothing.
- A write-through table (the counters) is saved in its own file before the request
  that changed it is answered, so an id handed out is never handed out again after a
  crash, even when the item it was for was lost.
- `queues.json` holds the messages of every queue (the dead-letter queue of the order
  events), saved before each request that changed them is answered.

Every file is replaced atomically (a temporary file, fsync, rename), so a crash leaves
the previous version or the next, never half of one. At start the files are read and
checked before anything is served; one that cannot be read or is not a data file of
this stack stops the start with its name, and is left as it is.

`python -m infra.local.persistence reset` (`make reset`) empties the directory.
"""

import base64
import contextlib
import fcntl
import json
import os
import sys
import threading
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # only the emulator's process loads moto (infra/local/aws_process.py)
    from moto.dynamodb.models.table import Table

FORMAT = "logistics-local-dynamodb/1"
SNAPSHOT_FILE = "dynamodb.json"
QUEUES_FORMAT = "logistics-local-queues/1"
QUEUES_FILE = "queues.json"
SNAPSHOT_SECONDS = 1.0
_LOCK_FILE = ".lock"
_DYNAMODB_TYPES = {"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}


class DataError(Exception):
    """The data directory cannot be used as it is; str() is the line to print."""


def _jsonable(value):
    # moto hands nested binary values back as bytes; DynamoDB's JSON carries base64.
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON")


def write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")  # its owner's alone, from the first byte
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # one a crash left behind, made before this
    with open(descriptor, "w", encoding="utf-8") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)  # the rename itself
    finally:
        os.close(directory)


class DataDir:
    """The directory of one stack's data. One stack at a time holds it: two writing the
    same files would each overwrite what the other wrote."""

    def __init__(self, path: Path):
        self.path = path
        self._lock: TextIO | None = None

    def file(self, name: str) -> Path:
        return self.path / name

    def hold(self) -> "DataDir":
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            lock = open(self.path / _LOCK_FILE, "a")  # noqa: SIM115 (held until release)
        except OSError as exc:
            raise DataError(f"Local data: {self.path} cannot be used ({exc.strerror})") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise DataError(
                f"Local data: {self.path} is in use by another local stack "
                "(make run or make emulators): stop it first"
            ) from None
        self._lock = lock
        return self

    def release(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def data_files(self) -> list[Path]:
        return sorted(self.path.glob("*.json*"))

    def reset(self) -> list[Path]:
        """Remove every data file; refused while a stack holds the directory."""
        if not self.path.exists():
            return []
        self.hold()
        try:
            removed = self.data_files()
            for path in removed:
                if path.is_dir():
                    raise DataError(
                        f"Local data: {path} is a directory, not a data file: remove it by hand"
                    )
                path.unlink()
            return removed
        finally:
            self.release()


class Snapshots:
    """The tables of one emulator, restored from a DataDir and saved back to it.

    `tables` gives the emulator's tables by name; `locks` holds the locks of the named
    tables (the emulator's own, so a copy never sees half of a request).
    """

    def __init__(
        self,
        directory: DataDir,
        tables: Callable[[], dict[str, "Table"]],
        locks: Callable[[set[str]], contextlib.AbstractContextManager],
        write_through: Iterable[str] = (),
        queues: Callable[[], dict] = dict,
    ):
        self.directory = directory
        self._tables = tables
        self._queues = queues
        self._queue_guard = threading.Lock()
        self._locks = locks
        self._write_through = frozenset(write_through)
        self._guard = threading.Lock()
        self._changed: set[str] = set()
        self._saved: dict[str, str] = {}  # table -> its items as JSON text, as last saved
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    # -- start: read back ----------------------------------------------------------------

    def restore(self) -> dict[str, int]:
        """Put every saved item back into its (empty) table, and every saved message into
        its queue; raises DataError naming the file that cannot be used. Returns how many
        each table and queue got back."""
        tables = self._tables()
        restored: dict[str, int] = {}
        for path in self._files_present():
            for name, items in self._read(path, tables).items():
                for item in items:
                    try:
                        tables[name].put_item(item)
                    except Exception as exc:
                        raise DataError(
                            f"Local data: {path}: an item of {name!r} cannot be "
                            f"restored ({exc}); the file was left as it is"
                        ) from None
                restored[name] = len(items)
        for name, table in tables.items():
            self._saved[name] = self._as_text(table)
        restored.update(self._restore_queues())
        return restored

    def _restore_queues(self) -> dict[str, int]:
        from moto.sqs.models import Message

        path = self.directory.file(QUEUES_FILE)
        if not path.exists():
            return {}
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            saved = document["queues"]
            assert document["format"] == QUEUES_FORMAT and isinstance(saved, dict)
        except (ValueError, KeyError, TypeError, AssertionError):
            raise DataError(
                f"Local data: {path} is not a queues file of this stack; it was left as it is"
            ) from None
        queues = self._queues()
        for name, bodies in saved.items():
            if name in queues:
                for body in bodies:
                    queues[name].add_message(Message(str(uuid.uuid4()), body))
        return {name: len(bodies) for name, bodies in saved.items() if name in queues}

    def queues_written(self) -> None:
        """Called by the emulator after a request that changed a queue's messages."""
        with self._queue_guard:
            saved = {
                name: [message.body for message in queue._messages]
                for name, queue in self._queues().items()
            }
            write_atomically(
                self.directory.file(QUEUES_FILE),
                json.dumps({"format": QUEUES_FORMAT, "queues": saved}, separators=(",", ":"))
                + "\n",
            )

    def _files_present(self) -> list[Path]:
        names = [SNAPSHOT_FILE, *(f"{name}.json" for name in sorted(self._write_through))]
        return [self.directory.file(name) for name in names if self.directory.file(name).exists()]

    @staticmethod
    def _read(path: Path, tables: dict[str, "Table"]) -> dict[str, list]:
        def refuse(why: str) -> DataError:
            return DataError(
                f"Local data: {path} {why}. Nothing was started and the file was left as "
                "it is: repair or move it, or `make reset` to start empty "
                "(LOCAL_DATA_DIR= keeps data in memory only)."
            )

        try:
            document = json.loads(path.read_bytes())
        except OSError as exc:
            raise refuse(f"cannot be read ({exc.strerror})") from None
        except ValueError as exc:
            raise refuse(f"is not valid JSON ({exc})") from None
        if (
            not isinstance(document, dict)
            or document.get("format") != FORMAT
            or not isinstance(document.get("tables"), dict)
        ):
            raise refuse(f"is not a data file of this stack (expected format {FORMAT!r})")
        for name, items in document["tables"].items():
            if name not in tables:
                raise refuse(f"holds table {name!r}, which infra/template.yaml does not declare")
            if not isinstance(items, list):
                raise refuse(f"holds {name!r} as something other than a list of items")
            for item in items:
                table = tables[name]
                keys = {
                    key for key in (table.hash_key_attr, table.range_key_attr) if key is not None
                }
                if (
                    not isinstance(item, dict)
                    or not keys <= set(item)
                    or not all(
                        isinstance(value, dict)
                        and len(value) == 1
                        and next(iter(value)) in _DYNAMODB_TYPES
                        for value in item.values()
                    )
                ):
                    raise refuse(
                        f"holds an item of {name!r} that is not a DynamoDB item "
                        f"with its key ({', '.join(sorted(keys))})"
                    )
        return document["tables"]

    # -- running: save what changed --------------------------------------------------------

    def written(self, tables: set[str] | None) -> None:
        """Called by the emulator inside a write request, holding its tables' locks."""
        known = self._tables()
        names = set(known) if tables is None else tables & set(known)
        for name in names & self._write_through:
            self._save_file(f"{name}.json", [name], {name: self._as_text(known[name])})
        with self._guard:
            self._changed |= names - self._write_through

    def start(self) -> "Snapshots":
        self._thread = threading.Thread(
            target=self._save_periodically, name="snapshots", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """The last save, once no request can write any more."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
        self.save_changed()

    def _save_periodically(self) -> None:
        while not self._stopping.wait(SNAPSHOT_SECONDS):
            try:
                self.save_changed()
            except Exception as exc:  # a full disk must not end the thread: retry later
                print(
                    f"Local data: could not save {self.directory.path}: {exc}",
                    file=sys.stderr,
                    flush=True,
                )

    def save_changed(self) -> None:
        with self._guard:
            names = set(self._changed)
        if not names:
            return
        tables = self._tables()
        with self._locks(names):
            # Cleared while the tables are held: a write after this marks them again.
            with self._guard:
                self._changed -= names
            copies = {
                name: [item.to_json()["Attributes"] for item in tables[name].all_items()]
                for name in names
            }
        texts = {
            name: json.dumps(items, default=_jsonable, separators=(",", ":"))
            for name, items in copies.items()
        }
        snapshot = sorted(set(tables) - self._write_through)
        self._save_file(SNAPSHOT_FILE, snapshot, texts)

    def _as_text(self, table: "Table") -> str:
        return json.dumps(
            [item.to_json()["Attributes"] for item in table.all_items()],
            default=_jsonable,
            separators=(",", ":"),
        )

    def _save_file(self, name: str, tables: list[str], texts: dict[str, str]) -> None:
        """One file holding `tables`: the new `texts` of some, the last saved of the rest."""
        self._saved.update(texts)
        body = ",".join(f"{json.dumps(table)}:{self._saved.get(table, '[]')}" for table in tables)
        write_atomically(
            self.directory.file(name), f'{{"format":{json.dumps(FORMAT)},"tables":{{{body}}}}}\n'
        )


def main(argv: list[str]) -> None:
    from infra.local.settings import LocalSettings

    if argv != ["reset"]:
        sys.exit("usage: python -m infra.local.persistence reset")
    data_dir = LocalSettings.from_env().data_dir
    if data_dir is None:
        print("LOCAL_DATA_DIR is empty: the local stack keeps no data on disk.")
        return
    try:
        removed = DataDir(data_dir).reset()
    except DataError as exc:
        sys.exit(str(exc))
    print(
        f"Emptied {data_dir} ({len(removed)} file{'s' if len(removed) != 1 else ''} "
        "removed): the next start begins with empty tables."
    )


if __name__ == "__main__":
    main(sys.argv[1:])
