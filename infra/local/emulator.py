"""moto's server on 127.0.0.1, standing in for DynamoDB on a laptop and in tests.

These corrections make it behave like DynamoDB where the platform can tell:

- Atomic requests, per table (moto checks a condition and writes in two steps): each
  holds its tables' locks, in one order, requests of an item before those of many (a
  list's); creating or deleting a table holds every table.
- Transactions in constant time. moto deep-copies every table a transaction touches to
  undo a failure; here conditions are checked before anything is written, and only the
  items written are kept to undo a failed write.
- Memory bounded by the data. moto keeps every model object it ever built in a list on
  its class (an introspection API nothing here uses): not for DynamoDB's models here.
- Data that survives a restart (LOCAL_DATA_DIR, infra/local/persistence.py): each
  write request tells the snapshots which tables it wrote while it still holds their
  locks, and a snapshot holds those locks only to copy the items.
- Numbers as DynamoDB reads them (38 significant digits, so `1` and 38 zeros is one):
  moto's strict conversion failed on such a number whenever an index projected it.
- Item answers in time of their items. moto 5 walks every answer's values against the
  service's model (half of a whole list's time); here an item operation's answer is
  written as the JSON it already is (DynamoDB's own format).
- Index queries in time of their partition. moto sorts every item of the table and then
  tests each against the key condition; here its query runs over the items of the one
  partition asked for, grouped and sorted once until the table is next written.
- A user pool's sign-in refused when its app client does not allow the flow, and its
  tokens signed with a key of the stack's own, never the one moto ships
  (infra/local/user_pool.py says why).
- A queue's message handed to one receiver at a time (moto checks and marks it in two
  steps): each queue's receives take turns.
- Streams that record committed writes only (infra/local/streams.py): nothing for a
  write undone, put back, restored or changing nothing; records live 24 hours, shard
  iterators 15 minutes; a stream read holds its table's lock.

The speed corrections are in every emulator, `make run`'s included, not only the
benchmarks': tests/e2e/test_lists_under_load.py holds the stack to answering other
requests while whole lists run.

And, when asked (`partitions`: infra/local/partition_writes.py), it counts the writes of
every partition key and throttles a key written too fast as DynamoDB does (400
ProvisionedThroughputExceededException); `GET /_local/partition-writes` answers them.

Each of moto's internals these corrections replace or read is listed, with why no public
API does it and a check that fails when a moto upgrade changes it, in
infra/private_uses.py (tests/unit/test_private_uses.py).
"""

import base64
import bisect
import contextlib
import copy
import functools
import json
import re
import threading
from datetime import UTC, datetime
from decimal import Decimal
from io import BytesIO
from typing import TYPE_CHECKING, Any, cast

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from joserfc import jwk
from moto.core import DEFAULT_ACCOUNT_ID
from moto.core import responses as moto_responses
from moto.core.model_instances import model_data
from moto.core.responses import ActionContext, ActionResult
from moto.dynamodb import responses as dynamodb_responses
from moto.dynamodb.comparisons import OpDefault, get_filter_expression
from moto.dynamodb.exceptions import (
    ConditionalCheckFailed,
    MockValidationException,
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
    TransactWriteSingleOpException,
)
from moto.dynamodb.models import DynamoDBBackend, dynamo_type, dynamodb_backends
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table
from moto.dynamodbstreams.responses import DynamoDBStreamsHandler
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from moto.sqs.models import sqs_backends
from werkzeug.serving import make_server

from infra.local import expressions, streams, user_pool
from infra.local.persistence import DataDir, Snapshots
from infra.local.servers import BackgroundServer, json_answer
from infra.local.settings import PARTITION_WRITES_PATH
from infra.local.user_pool import (
    COGNITO_TARGET,
    PoolUsers,
    TokenTrigger,
    access_tokens_run_the_trigger,
    changes_users,
    refused_flow,
    sign_with,
)

if TYPE_CHECKING:  # imported by whoever asks for a count (aws_process), never here
    from infra.local.partition_writes import PartitionWrites

_CATALOG_OPERATIONS = {
    "CreateTable",
    "DeleteTable",
    "UpdateTable",
    "ListTables",
    "RestoreTableFromBackup",
    "RestoreTableToPointInTime",
}
# Operations that change no item and no table: nothing to save after them.
_READ_OPERATIONS = {
    "GetItem",
    "BatchGetItem",
    "Query",
    "Scan",
    "TransactGetItems",
    "DescribeTable",
    "ListTables",
    "DescribeTimeToLive",
    "DescribeContinuousBackups",
    "ListTagsOfResource",
    "DescribeEndpoints",
    "DescribeLimits",
    # DynamoDB Streams' (the webhook events' local poller).
    "DescribeStream",
    "GetShardIterator",
    "GetRecords",
    "ListStreams",
}


class _Untracked(list):
    def append(self, _instance) -> None:
        pass


def _stop_tracking_dynamodb_models() -> None:
    for model in model_data["dynamodb"].values():
        # moto types the registry's values as object: they are its model classes.
        model.instances_tracked = _Untracked()  # type: ignore[attr-defined]


# The operations a transaction's item may hold.
_TRANSACT_OPERATIONS = {"ConditionCheck", "Put", "Delete", "Update"}
# A transaction's write: its operation, table, the item's key, and the request's operation.
_Planned = tuple[str, str, dict, dict]


def transact_write_items(self: DynamoDBBackend, transact_items: list[dict]) -> None:
    """DynamoDBBackend.transact_write_items, all conditions first, undoing only what it
    wrote; moto's answers (the cancellation reasons per item, in order)."""
    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    targets: set[tuple[str, str]] = set()
    planned: list[_Planned] = []
    # Every item is checked, even past a failed one: the answer gives each one's reason.
    errors = [_cancellation_reason(self, entry, targets, planned) for entry in transact_items]
    if any(code is not None for code, _, _ in errors):
        raise TransactionCanceledException(errors)
    _write_or_undo(self, planned)


def _cancellation_reason(
    self: DynamoDBBackend, entry: dict, targets: set[tuple[str, str]], planned: list[_Planned]
) -> tuple:
    """Why one item cancels the transaction, as moto gives it ((None, None, None): its
    write added to `planned`); raises for a request invalid as a whole."""
    if len(entry) > 1:
        raise TransactWriteSingleOpException
    original_item = None
    try:
        op_type, op = next(iter(entry.items()))
        if op_type not in _TRANSACT_OPERATIONS:
            raise ValueError("Unsupported transaction operation")
        table_name = op["TableName"]
        key = _transact_key(self, table_name, op_type, op)
        target = (str(table_name), str(dict(sorted(key.items()))))
        if target in targets:
            raise MultipleTransactionsException()
        targets.add(target)
        current = self.get_item(table_name, key)
        if not _condition_holds(current, op):
            if op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" and current:
                original_item = current.to_json()["Attributes"]
            raise ConditionalCheckFailed(item=original_item)
        planned.append((op_type, table_name, key, op))
        return (None, None, None)
    except (MultipleTransactionsException, MockValidationException):
        raise
    except ConditionalCheckFailed as exc:
        # moto's exception keeps the item only in its JSON: the reason takes it from here.
        return ("ConditionalCheckFailed", str(exc.message), original_item)
    except Exception as exc:
        return (type(exc).__name__, str(exc), original_item)


def _transact_key(self: DynamoDBBackend, table_name: str, op_type: str, op: dict) -> dict:
    """The key of the item an operation names: a Put's is in its item."""
    if op_type != "Put":
        return op["Key"]
    table = self.get_table(table_name)
    key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
    if table.range_key_attr is not None:
        key[table.range_key_attr] = op["Item"][table.range_key_attr]
    return key


def _condition_holds(current: Item | None, op: dict) -> bool:
    """Whether the item as it is now meets the operation's ConditionExpression (if any)."""
    condition = op.get("ConditionExpression")
    if condition is None:
        return True
    check = get_filter_expression(
        condition,
        op.get("ExpressionAttributeNames"),
        op.get("ExpressionAttributeValues"),
    )
    return bool(check.expr(current))


def _write_or_undo(self: DynamoDBBackend, planned: list[_Planned]) -> None:
    """Every planned write, in order; if one fails, those done are undone (each item put
    back as it was, or deleted if it was not there, and no stream record left of any of
    it) and the failure raised."""
    undo: list[tuple[str, dict, Item | None]] = []
    marks = streams.mark({self.get_table(table_name) for _, table_name, _, _ in planned})
    try:
        for op_type, table_name, key, op in planned:
            if op_type == "ConditionCheck":
                continue
            undo.append((table_name, key, copy.deepcopy(self.get_item(table_name, key))))
            _write(self, op_type, table_name, key, op)
    except Exception:
        for table_name, key, before in reversed(undo):
            if before is None:
                self.delete_item(table_name, key)
            else:
                self.put_item(table_name, before.to_json()["Attributes"])
        streams.rewind(marks)
        raise


def _write(self: DynamoDBBackend, op_type: str, table_name: str, key: dict, op: dict) -> None:
    """One Put, Delete or Update of a transaction, as moto's own item operations do it."""
    if op_type == "Put":
        self.put_item(table_name, op["Item"])
    elif op_type == "Delete":
        self.delete_item(table_name, key)
    else:
        # None when absent, as moto's own transact_write_items passes them (its
        # update_item is annotated with dicts only).
        names, values = op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
        self.update_item(
            table_name,
            key,
            update_expression=op["UpdateExpression"],
            expression_attribute_names=names,  # type: ignore[arg-type]
            expression_attribute_values=values,  # type: ignore[arg-type]
        )


_moto_query = Table.query
# Write requests answered per table name (AtomicPerTable counts them holding the table's
# lock): an index's partitions, grouped once, stay good until the next one.
_writes_seen: dict[str, int] = {}


def _partitions(table: Table, index_name: str, hash_attr: str, sort_attr: str) -> dict | None:
    """{(type, value): (the index partition's sort keys, its items), in sort-key order} of
    one index whose sort key is a number, grouped in one pass over the table and kept
    until the table is next written; None when some item's sort key is not a number
    (moto's own query then)."""
    version = (_writes_seen.get(table.name, 0), len(table.items))
    cached: tuple[tuple[int, int], dict[tuple, dict | None]] | None = getattr(
        table, "_index_partitions", None
    )
    if cached is None or cached[0] != version:
        cached = (version, {})
        table._index_partitions = cached  # type: ignore[attr-defined]  # kept on moto's table
    key = (index_name, hash_attr, sort_attr)
    if key not in cached[1]:
        groups: dict[tuple, list] = {}
        for item in cast(dict[DynamoType, Item], table.items).values():  # an item per key
            found, sort = item.attrs.get(hash_attr), item.attrs.get(sort_attr)
            if found is None or sort is None:
                continue  # not in the index (sparse)
            if sort.type != "N":
                cached[1][key] = None
                return None
            value = Decimal(found.value) if found.type == "N" else found.value
            groups.setdefault((found.type, value), []).append((Decimal(sort.value), item))
        ordered = {
            partition: sorted(pairs, key=lambda p: p[0]) for partition, pairs in groups.items()
        }
        cached[1][key] = {
            partition: ([k for k, _ in pairs], [item for _, item in pairs])
            for partition, pairs in ordered.items()
        }
    return cached[1][key]


def query_one_partition(self: Table, *args, **kwargs):
    """Table.query over only the items of the index partition the query names.

    Runs under the table's lock (held for the whole request), so shadowing all_items on
    this table for the call is seen by this query alone. The index's partitions are
    grouped once and kept until the table is next written, so a page that merges many
    partitions (common.storage.shards) does not go over the table once per partition. Anything
    but an equality on a string or number partition key of an index whose sort key is a
    number goes to moto as is.
    """
    index_name = args[7] if len(args) > 7 else kwargs.get("index_name")
    conditions = kwargs.get("hash_key_conditions") or []
    if (
        not index_name
        or self.range_key_attr
        or len(conditions) != 1
        or conditions[0][1].type not in ("S", "N")
    ):
        return _moto_query(self, *args, **kwargs)
    sort_keys = [
        k["AttributeName"] for k in self.get_index(index_name).schema if k["KeyType"] == "RANGE"
    ]
    if len(sort_keys) != 1:
        return _moto_query(self, *args, **kwargs)
    name, value = conditions[0]
    partitions = _partitions(self, index_name, name, sort_keys[0])
    if partitions is None:
        return _moto_query(self, *args, **kwargs)
    wanted = Decimal(value.value) if value.type == "N" else value.value
    sort_values, ordered = partitions.get((value.type, wanted), ([], []))
    range_comparison, range_objs, limit, start_key, forward = args[1:6]
    filtered = args[9] if len(args) > 9 else kwargs.get("filter_expression")
    if (
        range_comparison == ">"
        and forward
        and start_key is None
        and limit
        and (filtered is None or isinstance(filtered, OpDefault))
        and range_objs[0].type == "N"
    ):
        # A page after an id (common.storage.shards): only the items after it, and one more
        # than the limit, so that moto still sees whether the partition goes on.
        first = bisect.bisect_right(sort_values, Decimal(range_objs[0].value))
        ordered = ordered[first : first + limit + 1]
    self.all_items = lambda: ordered  # type: ignore[method-assign]  # see the docstring
    try:
        return _moto_query(self, *args, **kwargs)
    finally:
        del self.all_items


# Item operations, and a stream's records, whose answers are DynamoDB's JSON as moto
# already holds it (a page of 400 shipments' records: 1 s through moto's serializer).
_PLAIN_ANSWERS = {"GetItem", "Query", "Scan", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem"}
_PLAIN_ANSWERS |= {"GetRecords"}
_generic_answer = dynamodb_responses.DynamoResult.execute_result


def _plain_json(value: object) -> object:
    if isinstance(value, bytes):  # a binary attribute: base64, as on the wire
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Decimal):  # consumed capacity
        return float(value)
    if isinstance(value, datetime):  # a record's creation (moto's naive UTC): epoch s, to ms
        return int(value.replace(tzinfo=UTC).timestamp() * 1000) / 1000
    raise TypeError(f"{type(value).__name__} is not JSON")


def plain_answer(
    self: ActionResult, context: ActionContext
) -> tuple[int, dict[str, Any], str | bytes]:
    """An item operation's answer written as the JSON it already is; the rest through
    moto's serializer, which walks every value against the service's model (about a
    millisecond an item: a whole list of 3,000 orders spent half its 4 s there)."""
    if context.operation_model.name not in _PLAIN_ANSWERS:
        return _generic_answer(self, context)
    body = json.dumps(self.result, default=_plain_json)
    return 200, {"Content-Type": "application/x-amz-json-1.0"}, body


def _records(self: DynamoDBStreamsHandler) -> ActionResult:
    """GetRecords, answered as the item operations are (plain_answer)."""
    limit = self._get_param("Limit") or 1000
    iterator = self._get_param("ShardIterator")
    return dynamodb_responses.DynamoResult(self.backend.get_records(iterator, limit))


class _ExactDeserializer(TypeDeserializer):
    """boto3's, reading a number exactly (its context traps a 39th digit, even a zero)."""

    def _deserialize_n(self, value: str) -> Decimal:
        return Decimal(value)


class _ExactSerializer(TypeSerializer):
    def _serialize_n(self, value) -> str:
        number = Decimal(value)
        if not number.is_finite():
            raise TypeError("Infinity and NaN not supported")
        return str(number)


def _exact_numbers() -> None:
    """moto's item conversions (its module's serializer and deserializer) made exact."""
    dynamo_type.deserializer = _ExactDeserializer()
    dynamo_type.serializer = _ExactSerializer()


class _TableLock:
    """A table's lock, handed to requests of an item or a few before those that read many
    (_BULK): with a plain lock, four whole lists at once kept a shipment's lookup of its
    order waiting past its 2 s. An item request waits for the one in progress at most."""

    def __init__(self) -> None:
        self._turn, self._held, self.waiting = threading.Condition(), False, [0, 0]

    @contextlib.contextmanager
    def held(self, bulk: bool):
        with self._turn:
            self.waiting[bulk] += 1
            self._turn.wait_for(lambda: not self._held and (not bulk or not self.waiting[0]))
            self.waiting[bulk] -= 1
            self._held = True
        try:
            yield
        finally:
            with self._turn:
                self._held = False
                self._turn.notify_all()


_BULK = {"Query", "Scan", "BatchGetItem", "BatchWriteItem", "GetRecords"}


class _TableLocks:
    """A lock per table, and the whole catalog for operations that change it."""

    def __init__(self):
        self._guard = threading.Lock()
        self._tables: dict[str, _TableLock] = {}
        self._catalog = threading.Condition()
        self._users = 0  # requests holding table locks
        self._changing = False

    @contextlib.contextmanager
    def holding(self, tables: set[str] | None, bulk: bool = False):
        """Hold the named tables' locks (`bulk`: as a request of many items); None: every
        table (the catalog changes)."""
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
                    held.enter_context(self._lock(name).held(bulk))
                yield
        finally:
            with self._catalog:
                self._users -= 1
                self._catalog.notify_all()

    def _lock(self, name: str) -> _TableLock:
        with self._guard:
            return self._tables.setdefault(name, _TableLock())


class _QueueLocks:
    """A lock per queue name (ReceiveMessage's, AtomicPerTable._receiving)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._queues: dict[str, threading.Lock] = {}

    def lock(self, queue: str) -> threading.Lock:
        with self._guard:
            return self._queues.setdefault(queue, threading.Lock())


QUEUE_TARGET = "AmazonSQS."
# KMS (the webhooks' secrets): its keys are made at start, then only read by encrypting
# and decrypting, so its requests take no lock.
KMS_TARGET = "TrentService."
# What changes which messages a queue holds (receiving only hides them for a while).
_QUEUE_WRITES = {
    "SendMessage",
    "SendMessageBatch",
    "DeleteMessage",
    "DeleteMessageBatch",
    "PurgeQueue",
}


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
    # A stream's request names its table in the stream's ARN (an iterator's begins so).
    stream = _STREAM_TABLE.search(request.get("StreamArn") or request.get("ShardIterator") or "")
    if stream:
        tables.add(stream[1])
    return tables or None


_STREAM_TABLE = re.compile(r":table/([^/]+)/stream/")


class AtomicPerTable:
    """Each request to the wrapped app holds the locks of the tables it names. An
    `observer` (the snapshots of LOCAL_DATA_DIR) is told which tables a request may have
    written while their locks are still held (it never misses an answered write);
    `partitions` (PartitionWrites), when given, counts and may refuse each write."""

    def __init__(self, app, partitions: "PartitionWrites | None" = None):
        self._app = app
        self._locks = _TableLocks()
        self._queues = _QueueLocks()
        self.observer: Snapshots | None = None
        self.partitions = partitions
        self._pool_lock = threading.Lock()
        self.users: PoolUsers | None = None

    def holding(self, tables: set[str] | None, bulk: bool = False):
        return self._locks.holding(tables, bulk)

    def _receiving(self, target: str, body: bytes) -> contextlib.AbstractContextManager:
        """A queue's lock for a ReceiveMessage (two at once could both take a message: a
        webhook delivered twice), held through a long poll's wait too."""
        if target.rpartition(".")[2] != "ReceiveMessage":
            return contextlib.nullcontext()
        try:
            queue = str(json.loads(body or b"{}").get("QueueUrl", "")).rpartition("/")[2]
        except ValueError:
            return contextlib.nullcontext()
        return self._queues.lock(queue)

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == PARTITION_WRITES_PATH:
            if self.partitions is None:
                return json_answer(
                    start_response,
                    "404 Not Found",
                    {"message": "this emulator does not count partition writes"},
                )
            return self.partitions.answer(environ, start_response)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = BytesIO(body)
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        if target.startswith(COGNITO_TARGET):
            return self._user_pool(environ, start_response, target.rpartition(".")[2], body)
        if target.startswith(KMS_TARGET):
            return list(self._app(environ, start_response))
        if target.startswith(QUEUE_TARGET):  # SQS: no table's lock; a receive its queue's
            with self._receiving(target, body):
                response = list(self._app(environ, start_response))
            observer = self.observer
            if observer is not None and target.rpartition(".")[2] in _QUEUE_WRITES:
                observer.queues_written()
            return response
        tables = tables_named(target, body)
        operation = target.rpartition(".")[2]
        with self._locks.holding(tables, bulk=operation in _BULK):
            if self.partitions is not None:
                response = self.partitions.metered(
                    self._app, environ, start_response, operation, body
                )
            else:
                # Drain the response inside the locks: the write may happen while iterating.
                response = list(self._app(environ, start_response))
            if operation not in _READ_OPERATIONS:
                for name in tables or ():
                    _writes_seen[name] = _writes_seen.get(name, 0) + 1
                observer = self.observer
                if observer is not None:
                    observer.written(tables)
            return response

    def _user_pool(self, environ, start_response, operation: str, body: bytes) -> list:
        """A user pool's request: one at a time (moto's pools are not thread-safe either),
        its users saved before it is answered when it may have changed one; a sign-in by
        a flow its app client does not allow refused, as Cognito refuses it."""
        with self._pool_lock:
            refused = refused_flow(operation, body)
            if refused is not None:
                return json_answer(
                    start_response,
                    "400 Bad Request",
                    {"__type": "InvalidParameterException", "message": refused},
                )
            response = list(self._app(environ, start_response))
            if self.users is not None:  # passwords hashed: one for no one costs a hash too
                user_pool.cost_a_hash(operation, body, response)
                if changes_users(operation):
                    self.users.save()
        return response


class _ByTarget:
    """moto's app for each service, picked by the request's X-Amz-Target.

    moto's own dispatcher works out the service of every request from its headers under
    one lock, listing moto's package folders on disk each time: about a tenth of the
    emulator's time, with every request waiting in line for it. The services the
    platform uses (DynamoDB, its streams, SQS, Cognito, KMS) are told apart by their
    target's prefix; anything else (moto's own API) still goes to moto's dispatcher.
    """

    def __init__(self, fallback: DomainDispatcherApplication):
        self._fallback = fallback
        self._apps = {
            "DynamoDB_": create_backend_app("dynamodb"),
            "DynamoDBStreams_": create_backend_app("dynamodbstreams"),
            QUEUE_TARGET: create_backend_app("sqs"),
            KMS_TARGET: create_backend_app("kms"),
            COGNITO_TARGET: create_backend_app("cognito-idp"),
        }

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
        super().__init__(
            server.server_address,
            lambda: server.serve_forever(poll_interval=0.05),
            lambda: (server.shutdown(), server.server_close()),
            "aws-emulator",
            self._stopped,
        )
        self._app = app
        self.snapshots: Snapshots | None = None

    @property
    def partitions(self) -> "PartitionWrites | None":
        """The count of writes per partition key, if this emulator keeps one."""
        return self._app.partitions

    def tables(self, region: str) -> dict[str, Table]:
        return dynamodb_backends[DEFAULT_ACCOUNT_ID][region].tables

    def queues(self, region: str) -> dict:
        return sqs_backends[DEFAULT_ACCOUNT_ID][region].queues

    def streams_from_now(self, region: str) -> None:
        """No stream record of what was written so far (the data restored at start, its
        backfill): only what clients write from now on makes events."""
        tables = self.tables(region)
        with self._app.holding(set(tables)):
            streams.forget(tables.values())

    def keep_in(self, directory: DataDir, region: str, write_through=()) -> dict[str, int]:
        """Restore the tables and queues (already created, empty) from `directory`, then
        save them there as they change. Raises DataError, having changed nothing on disk,
        when a file cannot be used. Returns how many items each table, and messages each
        queue, got back."""
        snapshots = Snapshots(
            directory,
            lambda: self.tables(region),
            self._app.holding,
            write_through,
            lambda: self.queues(region),
        )
        restored = snapshots.restore()
        self.snapshots = snapshots.start()
        self._app.observer = snapshots
        return restored

    def keep_users_in(self, directory: DataDir, region: str, pool_id: str) -> int:
        """Restore the users of the (already created, empty) pool from `directory`, then
        save them there as they change (infra/local/user_pool.py); how many came back."""
        users = PoolUsers(directory, region, pool_id)
        restored = users.restore()
        self._app.users = users
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


def emulator(
    port: int = 0,
    partitions: "PartitionWrites | None" = None,
    signing_key: jwk.RSAKey | None = None,
    token_trigger: TokenTrigger | None = None,
) -> Emulator:
    """`partitions`: count the writes of every partition key, and throttle them if it has
    a rate (infra/local/partition_writes.py). `signing_key`: what its user pools sign
    their tokens with (infra/local/user_pool.py signing_key: the data directory's); a
    new one of its own without. `token_trigger`: what its pools run on every access
    token, as the pool's pre token generation trigger (the product's code: none here)."""
    # Patching moto is the point (see the functions' texts).
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    Table.query = query_one_partition  # type: ignore[method-assign]
    _stop_tracking_dynamodb_models()
    _exact_numbers()
    access_tokens_run_the_trigger(token_trigger)
    sign_with(signing_key or user_pool.signing_key(None))
    streams.install()
    expressions.install()
    dynamodb_responses.DynamoResult.execute_result = plain_answer  # type: ignore[method-assign]
    DynamoDBStreamsHandler.get_records = _records  # type: ignore[method-assign]
    if not hasattr(moto_responses.method_names_from_class, "cache_info"):
        _method_names_once()
    app = AtomicPerTable(_ByTarget(DomainDispatcherApplication(create_backend_app)), partitions)
    server = make_server(
        "127.0.0.1", port, app, threaded=True, request_handler=_QuietRequestHandler
    )
    return Emulator(server, app)
