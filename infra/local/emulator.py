"""moto's server on 127.0.0.1, standing in for DynamoDB on a laptop and in tests.

Three corrections make it behave like DynamoDB where the platform can tell:

- Atomic requests, per table. moto is not thread-safe: its backend checks a condition
  and writes in separate steps, so two threads could both pass `attribute_not_exists`.
  Each request holds the locks of the tables it names (in one global order, so two
  transactions never deadlock), so requests to different tables run side by side: a
  stock check's read of ProductsTable never waits behind order or shipment writes.
  Creating or deleting a table holds every table.
- Transactions in constant time. moto backs up every table a transaction touches with a
  deep copy, then restores it on failure: each product create copied the whole catalog
  twice, so creates slowed as the catalog grew. Here conditions are all checked before
  anything is written, and only the items written are kept to undo a failed write.
- Memory bounded by the data. moto keeps every model object it ever built in a list on
  its class (for its introspection API, which nothing here uses), so no overwritten
  item, and no table copy, was ever freed. The DynamoDB models are not tracked here.
- Data that survives a restart (LOCAL_DATA_DIR, infra/local/persistence.py): each
  write request tells the snapshots which tables it wrote while it still holds their
  locks, and a snapshot holds those locks only to copy the items.
- Index queries in time of their partition. For a query on an index, moto sorts every
  item of the table and then tests each against the key condition: a page of 10 alerts
  took twice as long at 10,000 products as at 1,000. Here moto's own query runs over
  the items of the one partition asked for, picked by plain string equality and put in
  sort-key order first.
"""

import contextlib
import copy
import functools
import json
import threading
from decimal import Decimal
from io import BytesIO
from typing import cast

from moto.core import DEFAULT_ACCOUNT_ID
from moto.core import responses as moto_responses
from moto.core.model_instances import model_data
from moto.dynamodb.comparisons import get_filter_expression
from moto.dynamodb.exceptions import (
    ConditionalCheckFailed,
    MockValidationException,
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
    TransactWriteSingleOpException,
)
from moto.dynamodb.models import DynamoDBBackend, dynamodb_backends
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from moto.sqs.models import sqs_backends
from werkzeug.serving import make_server

from infra.local.persistence import DataDir, Snapshots
from infra.local.servers import BackgroundServer

_CATALOG_OPERATIONS = {"CreateTable", "DeleteTable", "UpdateTable", "ListTables",
                       "RestoreTableFromBackup", "RestoreTableToPointInTime"}
# Operations that change no item and no table: nothing to save after them.
_READ_OPERATIONS = {"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems",
                    "DescribeTable", "ListTables", "DescribeTimeToLive",
                    "DescribeContinuousBackups", "ListTagsOfResource", "DescribeEndpoints",
                    "DescribeLimits"}


class _Untracked(list):
    def append(self, _instance) -> None:
        pass


def _stop_tracking_dynamodb_models() -> None:
    for model in model_data["dynamodb"].values():
        # moto types the registry's values as object: they are its model classes.
        model.instances_tracked = _Untracked()  # type: ignore[attr-defined]


def transact_write_items(self: DynamoDBBackend, transact_items: list[dict]) -> None:
    """DynamoDBBackend.transact_write_items, all conditions first, undoing only what it
    wrote. Same answers as moto's: the cancellation reasons per item, in order."""
    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    targets: set[tuple[str, str]] = set()
    planned: list[tuple[str, str, dict, dict]] = []
    errors: list[tuple] = []
    for entry in transact_items:
        if len(entry) > 1:
            raise TransactWriteSingleOpException
        original_item = None
        try:
            op_type, op = next(iter(entry.items()))
            if op_type not in {"ConditionCheck", "Put", "Delete", "Update"}:
                raise ValueError("Unsupported transaction operation")
            table_name = op["TableName"]
            if op_type == "Put":
                table = self.get_table(table_name)
                key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
                if table.range_key_attr is not None:
                    key[table.range_key_attr] = op["Item"][table.range_key_attr]
            else:
                key = op["Key"]
            target = (str(table_name), str(dict(sorted(key.items()))))
            if target in targets:
                raise MultipleTransactionsException()
            targets.add(target)
            current = self.get_item(table_name, key)
            condition = op.get("ConditionExpression")
            if condition is not None:
                check = get_filter_expression(condition, op.get("ExpressionAttributeNames"),
                                              op.get("ExpressionAttributeValues"))
                if not check.expr(current):
                    if op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" and current:
                        original_item = current.to_json()["Attributes"]
                    raise ConditionalCheckFailed(item=original_item)
            planned.append((op_type, table_name, key, op))
            errors.append((None, None, None))
        except (MultipleTransactionsException, MockValidationException):
            raise
        except ConditionalCheckFailed as exc:
            errors.append(("ConditionalCheckFailed", str(exc.message), original_item))
        except Exception as exc:
            errors.append((type(exc).__name__, str(exc), original_item))
    if any(code is not None for code, _, _ in errors):
        raise TransactionCanceledException(errors)

    undo: list[tuple[str, dict, object]] = []
    try:
        for op_type, table_name, key, op in planned:
            if op_type == "ConditionCheck":
                continue
            undo.append((table_name, key, copy.deepcopy(self.get_item(table_name, key))))
            names, values = op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
            if op_type == "Put":
                self.put_item(table_name, op["Item"])
            elif op_type == "Delete":
                self.delete_item(table_name, key)
            else:
                # None when absent, as moto's own transact_write_items passes them (its
                # update_item is annotated with dicts only).
                self.update_item(table_name, key, update_expression=op["UpdateExpression"],
                                 expression_attribute_names=names,  # type: ignore[arg-type]
                                 expression_attribute_values=values)  # type: ignore[arg-type]
    except Exception:
        for table_name, key, before in reversed(undo):
            if before is None:
                self.delete_item(table_name, key)
            else:
                self.put_item(table_name, before.to_json()["Attributes"])
        raise


_moto_query = Table.query


def query_one_partition(self: Table, *args, **kwargs):
    """Table.query over only the items of the index partition the query names.

    Runs under the table's lock (held for the whole request), so shadowing all_items on
    this table for the call is seen by this query alone. Anything but an equality on a
    string partition key of an index whose sort key is a number goes to moto as is.
    """
    index_name = args[7] if len(args) > 7 else kwargs.get("index_name")
    conditions = kwargs.get("hash_key_conditions") or []
    if not index_name or self.range_key_attr or len(conditions) != 1 \
            or conditions[0][1].type != "S":
        return _moto_query(self, *args, **kwargs)
    sort_keys = [k["AttributeName"] for k in self.get_index(index_name).schema
                 if k["KeyType"] == "RANGE"]
    name, value = conditions[0]
    items = cast(dict[DynamoType, Item], self.items)  # no range key: an item per hash key
    partition = [item for item in items.values()
                 if (found := item.attrs.get(name)) is not None and found.type == "S"
                 and found.value == value.value]
    if len(sort_keys) != 1:
        return _moto_query(self, *args, **kwargs)
    keyed = [(item.attrs.get(sort_keys[0]), item) for item in partition]
    if any(key is not None and key.type != "N" for key, _ in keyed):
        return _moto_query(self, *args, **kwargs)
    ordered = [item for key, item in sorted(
        ((key, item) for key, item in keyed if key is not None),
        key=lambda pair: Decimal(pair[0].value))]
    self.all_items = lambda: ordered  # type: ignore[method-assign]  # see the docstring
    try:
        return _moto_query(self, *args, **kwargs)
    finally:
        del self.all_items


class _TableLocks:
    """A lock per table, and the whole catalog for operations that change it."""

    def __init__(self):
        self._guard = threading.Lock()
        self._tables: dict[str, threading.Lock] = {}
        self._catalog = threading.Condition()
        self._users = 0  # requests holding table locks
        self._changing = False

    @contextlib.contextmanager
    def holding(self, tables: set[str] | None):
        """Hold the named tables' locks; None: every table (the catalog changes)."""
        if tables is None:
            with self._catalog:
                self._catalog.wait_for(lambda: not self._changing and self._users == 0)
                self._changing = True
            try:
                yield
            finally:
                with self._catalog:
                    self._changing = False
                    self._catalog.notify_all()
            return
        with self._catalog:
            self._catalog.wait_for(lambda: not self._changing)
            self._users += 1
        try:
            with contextlib.ExitStack() as held:
                for name in sorted(tables):
                    held.enter_context(self._lock(name))
                yield
        finally:
            with self._catalog:
                self._users -= 1
                self._catalog.notify_all()

    def _lock(self, name: str) -> threading.Lock:
        with self._guard:
            return self._tables.setdefault(name, threading.Lock())


QUEUE_TARGET = "AmazonSQS."
# What changes which messages a queue holds (receiving only hides them for a while).
_QUEUE_WRITES = {"SendMessage", "SendMessageBatch", "DeleteMessage", "DeleteMessageBatch",
                 "PurgeQueue"}


def tables_named(target: str, body: bytes) -> set[str] | None:
    """The tables a DynamoDB request touches; None when it touches the catalog."""
    operation = target.rpartition(".")[2]
    if operation in _CATALOG_OPERATIONS:
        return None
    try:
        request = json.loads(body or b"{}")
    except ValueError:
        return None
    tables = set(request.get("RequestItems") or {})
    for item in request.get("TransactItems") or []:
        for op in item.values():
            if isinstance(op, dict) and "TableName" in op:
                tables.add(op["TableName"])
    if "TableName" in request:
        tables.add(request["TableName"])
    return tables or None


class AtomicPerTable:
    """Each request to the wrapped app holds the locks of the tables it names.

    An `observer` (the snapshots of LOCAL_DATA_DIR) is told which tables a request may
    have written while their locks are still held, so it can never miss a write that a
    client has been answered for.
    """

    def __init__(self, app):
        self._app = app
        self._locks = _TableLocks()
        self.observer = None

    def holding(self, tables: set[str] | None):
        return self._locks.holding(tables)

    def __call__(self, environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = BytesIO(body)
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        if target.startswith(QUEUE_TARGET):  # SQS: its own locks (moto's), no table's
            response = list(self._app(environ, start_response))
            observer = self.observer
            if observer is not None and target.rpartition(".")[2] in _QUEUE_WRITES:
                observer.queues_written()
            return response
        tables = tables_named(target, body)
        with self._locks.holding(tables):
            # Drain the response inside the locks: the write may happen while iterating.
            response = list(self._app(environ, start_response))
            observer = self.observer
            if observer is not None and target.rpartition(".")[2] not in _READ_OPERATIONS:
                observer.written(tables)
            return response


class _ByTarget:
    """moto's app for each service, picked by the request's X-Amz-Target.

    moto's own dispatcher works out the service of every request from its headers under
    one lock, listing moto's package folders on disk each time: about a tenth of the
    emulator's time, with every request waiting in line for it. The two services the
    platform uses are told apart by their target's prefix; anything else (moto's own
    API) still goes to moto's dispatcher.
    """

    def __init__(self, fallback: DomainDispatcherApplication):
        self._fallback = fallback
        self._apps = {"DynamoDB_": create_backend_app("dynamodb"),
                      QUEUE_TARGET: create_backend_app("sqs")}

    def __call__(self, environ, start_response):
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        for prefix, app in self._apps.items():
            if target.startswith(prefix):
                return app(environ, start_response)
        return self._fallback(environ, start_response)


class _QuietRequestHandler(MotoRequestHandler):
    """The emulator is plumbing: its per-call access log would drown the services' own."""

    def log_request(self, *args, **kwargs):
        pass


class Emulator(BackgroundServer):
    """The emulator's server, and its tables (`keep_in` saves them in LOCAL_DATA_DIR)."""

    def __init__(self, server, app: AtomicPerTable):
        super().__init__(server.server_address, lambda: server.serve_forever(poll_interval=0.05),
                         lambda: (server.shutdown(), server.server_close()), "aws-emulator",
                         self._stopped)
        self._app = app
        self.snapshots: Snapshots | None = None

    def tables(self, region: str) -> dict[str, Table]:
        return dynamodb_backends[DEFAULT_ACCOUNT_ID][region].tables

    def queues(self, region: str) -> dict:
        return sqs_backends[DEFAULT_ACCOUNT_ID][region].queues

    def keep_in(self, directory: DataDir, region: str, write_through=()) -> dict[str, int]:
        """Restore the tables and queues (already created, empty) from `directory`, then
        save them there as they change. Raises DataError, having changed nothing on disk,
        when a file cannot be used. Returns how many items each table, and messages each
        queue, got back."""
        snapshots = Snapshots(directory, lambda: self.tables(region), self._app.holding,
                              write_through, lambda: self.queues(region))
        restored = snapshots.restore()
        self.snapshots = snapshots.start()
        self._app.observer = snapshots
        return restored

    def _stopped(self) -> None:
        if self.snapshots is not None:
            self._app.observer = None
            self.snapshots.stop()


def _method_names_once() -> None:
    """moto lists a response class's methods (inspect.getmembers) on every request, to
    find the action's; a class's methods do not change while the emulator runs."""
    names = functools.lru_cache(maxsize=None)(moto_responses.method_names_from_class)
    moto_responses.method_names_from_class = names


def emulator(port: int = 0) -> Emulator:
    # Patching moto is the point (see the functions' texts).
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    Table.query = query_one_partition  # type: ignore[method-assign]
    _stop_tracking_dynamodb_models()
    if not hasattr(moto_responses.method_names_from_class, "cache_info"):
        _method_names_once()
    app = AtomicPerTable(_ByTarget(DomainDispatcherApplication(create_backend_app)))
    server = make_server("127.0.0.1", port, app, threaded=True,
                         request_handler=_QuietRequestHandler)
    return Emulator(server, app)
