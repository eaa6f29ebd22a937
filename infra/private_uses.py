"""Every private part of a library that the local stack, the tests and the benchmarks rely
on, in one list: what it is, where, why no public API does it, and a check of what we
rely on (a name, the parameters we pass or receive, the attributes we read, the call
that makes a replacement take effect) that fails when an upgrade changes it.

tests/unit/test_private_uses.py runs every check, in a fresh process (the emulator's own
patches must not be what is checked), and fails with the entry's name and the installed
version of its library; it also scans infra/, tests/ and bench/ (tests/support/
private_uses.py says for what) and fails on a private use no entry covers, or on an
entry whose use is gone. Deployed code (functions/, layers/) uses none of them.

Here, "private" means one of: a name with a leading underscore on a library's object
(read, set, overridden or replaced); a library's class or module attribute set or
wrapped by us (a patch, even of a public name); an import from a module the library
does not document (moto's models, waitress's internals, chalice.local). Our own
underscored names used from a test (`aws._new_session`, `pool._acquire`,
`lam._run_in_background`, ...) are not a library's and are not listed: the scan knows
those objects (tests/support/private_uses.py OWN).

`python -m infra.private_uses` runs every check and prints what changed.
"""

import importlib
import importlib.metadata
import inspect
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

# The account and region of the backends the checks build apart from the emulator's.
_ACCOUNT, _REGION = "000000000000", "us-east-1"


class Changed(Exception):
    """What a private use relies on no longer holds; str() says what, in library terms."""


@dataclass(frozen=True)
class PrivateUse:
    name: str  # what is used, and how (replaced, wrapped, read, subclassed)
    library: str  # the distribution, as importlib.metadata names it
    where: tuple[str, ...]  # the files that rely on it
    why: str  # why no public API does it
    check: Callable[[], None]  # raises Changed when what we rely on no longer holds
    uses: tuple[str, ...]  # what the scan finds of it in `where` (its texts)

    def version(self) -> str:
        return importlib.metadata.version(self.library)

    def changed(self, what: str) -> str:
        """The line that says an upgrade changed what this use relies on."""
        return (
            f"{self.library} {self.version()}: {what} -- {', '.join(self.where)} relies on "
            f"it ({self.name}): re-check it there. Why it is used: {self.why}."
        )


def _label(thing: Any) -> str:
    return str(getattr(thing, "__qualname__", None) or getattr(thing, "__name__", repr(thing)))


def takes(func: Callable, *names: str) -> None:
    """`func`'s first parameters are `names`, in this order."""
    got = list(inspect.signature(func).parameters)
    if got[: len(names)] != list(names):
        raise Changed(
            f"{_label(func)} no longer takes ({', '.join(names)}): it takes ({', '.join(got)})"
        )


def takes_only(func: Callable, *names: str) -> None:
    """`func`'s parameters are exactly `names`: the library calls our replacement or
    override of it with them."""
    got = list(inspect.signature(func).parameters)
    if got != list(names):
        raise Changed(
            f"{_label(func)} no longer takes only ({', '.join(names)}): it takes ({', '.join(got)})"
        )


def accepts(func: Callable, *names: str) -> None:
    """`func` has parameters named `names` (passed by keyword), in any order."""
    got = inspect.signature(func).parameters
    missing = [name for name in names if name not in got]
    if missing:
        raise Changed(f"{_label(func)} no longer accepts {', '.join(missing)}")


def has(owner: Any, *names: str) -> None:
    """`owner` (a class, a module, an object) has attributes `names`."""
    missing = [name for name in names if not hasattr(owner, name)]
    if missing:
        raise Changed(f"{_label(owner)} has no {', '.join(missing)}")


def sets(cls: type, *names: str) -> None:
    """Instances of `cls` get `names`: class attributes, or set on self in the code of
    `cls` or of a base from the same library."""
    library = cls.__module__.split(".")[0]
    found = set(dir(cls))
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] == library:
            found |= set(re.findall(r"self\.(\w+)\s*(?::[^=\n]*)?=", inspect.getsource(klass)))
    missing = [name for name in names if name not in found]
    if missing:
        raise Changed(f"{_label(cls)} no longer sets {', '.join(missing)} on its instances")


def calls(owner: Any, *code: str) -> None:
    """`owner`'s source still holds each piece of `code`: the call through which a
    replacement of ours takes effect."""
    source = inspect.getsource(owner)
    missing = [piece for piece in code if piece not in source]
    if missing:
        raise Changed(f"{_label(owner)} no longer calls {', '.join(missing)}")


def is_a(obj: Any, cls: type, what: str) -> None:
    if not isinstance(obj, cls):
        raise Changed(f"{what} is a {type(obj).__name__}, no longer a {cls.__name__}")


# -- moto: the emulator's corrections (infra/local/emulator.py) ----------------------------


def _moto_transactions() -> None:
    from moto.dynamodb import exceptions
    from moto.dynamodb.comparisons import get_filter_expression
    from moto.dynamodb.models import DynamoDBBackend

    takes_only(DynamoDBBackend.transact_write_items, "self", "transact_items")
    takes(DynamoDBBackend.get_table, "self", "table_name")
    takes(DynamoDBBackend.get_item, "self", "table_name", "keys")
    takes(DynamoDBBackend.put_item, "self", "table_name", "item_attrs")
    takes(DynamoDBBackend.delete_item, "self", "table_name", "key")
    takes(DynamoDBBackend.update_item, "self", "table_name", "key")
    accepts(
        DynamoDBBackend.update_item,
        "update_expression",
        "expression_attribute_names",
        "expression_attribute_values",
    )
    takes(get_filter_expression, "expr", "names", "values")
    has(get_filter_expression("a = :v", None, {":v": {"S": "x"}}), "expr")
    has(
        exceptions,
        "MockValidationException",
        "MultipleTransactionsException",
        "TooManyTransactionsException",
        "TransactWriteSingleOpException",
    )
    takes(exceptions.TransactionCanceledException.__init__, "self", "errors")
    accepts(exceptions.ConditionalCheckFailed.__init__, "item")
    has(exceptions.ConditionalCheckFailed(item=None), "message")


def _moto_query() -> None:
    from moto.dynamodb.comparisons import OpDefault
    from moto.dynamodb.models.table import Table

    takes(
        Table.query,
        "self",
        "hash_key",
        "range_comparison",
        "range_objs",
        "limit",
        "exclusive_start_key",
        "scan_index_forward",
        "projection_expressions",
        "index_name",
        "consistent_read",
        "filter_expression",
    )
    accepts(Table.query, "hash_key_conditions")
    # The query's items are the table's all_items(), which the patch narrows for a call.
    calls(Table.query, "self.all_items()")
    takes(Table.get_index, "self", "index_name")
    is_a(OpDefault, type, "moto.dynamodb.comparisons.OpDefault")
    if "_index_partitions" in dir(Table) or hasattr(Table, "__slots__"):
        raise Changed("Table has an _index_partitions of its own, or no room for ours")


def _moto_answers() -> None:
    from dataclasses import fields

    from moto.core import responses
    from moto.dynamodb import responses as dynamodb
    from moto.dynamodbstreams.responses import DynamoDBStreamsHandler

    takes_only(dynamodb.DynamoResult.execute_result, "self", "context")
    item = {"Item": {"id": {"N": "1"}}}
    if dynamodb.DynamoResult(item).result != item:
        raise Changed("DynamoResult(...).result is no longer the answer as DynamoDB JSON")
    calls(dynamodb.DynamoHandler.get_item, "DynamoResult(")
    calls(responses.BaseResponse, ".execute_result(context)")
    takes_only(DynamoDBStreamsHandler.get_records, "self")
    calls(DynamoDBStreamsHandler.get_records, "self.backend.get_records(", '"ShardIterator"')
    has(DynamoDBStreamsHandler, "_get_param")
    if "operation_model" not in {field.name for field in fields(responses.ActionContext)}:
        raise Changed("ActionContext has no operation_model")


def _moto_method_names() -> None:
    from moto.core import responses

    takes(responses.method_names_from_class, "clazz")
    # Looked up by its module name on each request, so the module's name is what to cache.
    calls(responses.BaseResponse, "method_names_from_class(")


def _moto_model_tracking() -> None:
    from moto.core import common_models
    from moto.core.model_instances import model_data
    from moto.dynamodb.models import dynamo_type

    tracked = model_data.get("dynamodb", {})
    if "Item" not in tracked or tracked["Item"] is not dynamo_type.Item:
        raise Changed("model_data['dynamodb'] no longer holds the Item class")
    is_a(getattr(dynamo_type.Item, "instances_tracked", None), list, "Item.instances_tracked")
    calls(common_models.BaseModel, "instances_tracked.append(")


def _moto_numbers() -> None:
    from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
    from moto.dynamodb.models import dynamo_type

    is_a(getattr(dynamo_type, "serializer", None), TypeSerializer, "dynamo_type.serializer")
    is_a(getattr(dynamo_type, "deserializer", None), TypeDeserializer, "dynamo_type.deserializer")
    calls(dynamo_type, "serializer.serialize(", "deserializer.deserialize(")


def _boto3_number_conversions() -> None:
    from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

    class Writes(TypeSerializer):
        def _serialize_n(self, value: Any) -> str:
            return "ours"

    class Reads(TypeDeserializer):
        def _deserialize_n(self, value: str) -> str:
            return "ours"

    takes_only(TypeSerializer._serialize_n, "self", "value")
    takes_only(TypeDeserializer._deserialize_n, "self", "value")
    if Writes().serialize(Decimal(1)) != {"N": "ours"}:
        raise Changed("TypeSerializer.serialize no longer writes a number with _serialize_n")
    if Reads().deserialize({"N": "1"}) != "ours":
        raise Changed("TypeDeserializer.deserialize no longer reads a number with _deserialize_n")


def _moto_server_app() -> None:
    from moto.moto_server import werkzeug_app
    from werkzeug.serving import WSGIRequestHandler

    takes(werkzeug_app.create_backend_app, "service")
    takes(werkzeug_app.DomainDispatcherApplication.__init__, "self", "create_app")
    if not issubclass(werkzeug_app.MotoRequestHandler, WSGIRequestHandler):
        raise Changed("MotoRequestHandler is no longer werkzeug's WSGIRequestHandler")
    takes(werkzeug_app.MotoRequestHandler.log_request, "self")


def _moto_backends() -> None:
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import DynamoDBBackend, dynamodb_backends
    from moto.sqs.models import SQSBackend, sqs_backends

    is_a(DEFAULT_ACCOUNT_ID, str, "moto.core.DEFAULT_ACCOUNT_ID")
    dynamodb = dynamodb_backends[DEFAULT_ACCOUNT_ID][_REGION]
    is_a(dynamodb, DynamoDBBackend, "dynamodb_backends[account][region]")
    is_a(dynamodb.tables, dict, "DynamoDBBackend.tables")
    sqs = sqs_backends[DEFAULT_ACCOUNT_ID][_REGION]
    is_a(sqs, SQSBackend, "sqs_backends[account][region]")
    is_a(sqs.queues, dict, "SQSBackend.queues")


def _moto_kms_keys() -> None:
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.kms.models import Key, KmsBackend, kms_backends
    from moto.kms.utils import decrypt, encrypt

    is_a(DEFAULT_ACCOUNT_ID, str, "moto.core.DEFAULT_ACCOUNT_ID")
    backend = kms_backends[DEFAULT_ACCOUNT_ID][_REGION]
    is_a(backend, KmsBackend, "kms_backends[account][region]")
    is_a(backend.keys, dict, "KmsBackend.keys")
    own = KmsBackend(_REGION, _ACCOUNT)
    key = own.create_key(None, "ENCRYPT_DECRYPT", "SYMMETRIC_DEFAULT", "canary", None)
    is_a(key, Key, "KmsBackend.create_key's key")
    for attribute in ("id", "arn", "key_material"):
        if not hasattr(key, attribute):
            raise Changed(f"a Key no longer has .{attribute}")
    if key.id not in key.arn or own.keys.get(key.id) is not key:
        raise Changed("KmsBackend.keys no longer holds each key by its id, named in its arn")
    # A key put back under another id, with the material saved, decrypts what it
    # encrypted: the ciphertext names the key by id and is made with its material.
    blob = encrypt(own.keys, key.id, b"canary", {"webhookId": "1"})
    saved = "00000000-0000-4000-8000-000000000000"  # a key id: a UUID
    moved = blob.replace(key.id.encode(), saved.encode())
    own.keys[saved] = own.keys.pop(key.id)
    key.id = saved
    if decrypt(own.keys, moved, {"webhookId": "1"})[0] != b"canary":
        raise Changed("a key's material no longer alone decrypts what it encrypted")


def _canary_table(backend: Any) -> Any:
    """A table of moto's own backend (apart from the emulator's): id, and an index."""
    return backend.create_table(
        "Canary",
        schema=[{"AttributeName": "id", "KeyType": "HASH"}],
        throughput=None,
        attr=[{"AttributeName": name, "AttributeType": "N"} for name in ("id", "shard", "at")],
        global_indexes=[
            {
                "IndexName": "byShard",
                "KeySchema": [
                    {"AttributeName": "shard", "KeyType": "HASH"},
                    {"AttributeName": "at", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        indexes=None,
        streams=None,
        billing_mode="PAY_PER_REQUEST",
        sse_specification=None,
        tags=[],
        deletion_protection_enabled=False,
        warm_throughput=None,
    )


def _moto_tables() -> None:
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType, Item

    backend = DynamoDBBackend(_REGION, _ACCOUNT)
    table = _canary_table(backend)
    table.put_item({"id": {"N": "1"}, "shard": {"N": "1"}, "at": {"N": "5"}})
    has(table, "name", "hash_key_attr", "range_key_attr", "items", "global_indexes")
    (index,) = table.global_indexes
    has(index, "name", "schema", "projection")
    if table.get_index("byShard") is not index or table.hash_key_attr != "id":
        raise Changed("Table.get_index or Table.hash_key_attr no longer answer as read")
    (item,) = table.all_items()
    is_a(item, Item, "Table.all_items()'s item")
    if list(table.items.values()) != [item]:  # the hash-key-only table's items, by key
        raise Changed("Table.items no longer holds an item per key")
    is_a(item.attrs["at"], DynamoType, "Item.attrs' value")
    if (item.attrs["at"].type, item.attrs["at"].value) != ("N", "5"):
        raise Changed("DynamoType no longer has .type and .value as DynamoDB JSON")
    if item.to_json()["Attributes"]["id"] != {"N": "1"}:
        raise Changed("Item.to_json()['Attributes'] is no longer the item as DynamoDB JSON")
    if backend.get_item("Canary", {"id": {"N": "1"}}) is not item:
        raise Changed("DynamoDBBackend.get_item no longer answers the stored Item")


def _moto_queue_messages() -> None:
    from moto.sqs.models import Message, SQSBackend

    takes(Message.__init__, "self", "message_id", "body")
    queue = SQSBackend(_REGION, _ACCOUNT).create_queue("canary")
    queue.add_message(Message("1", "the body"))
    messages = getattr(queue, "_messages", None)
    if messages is None or [message.body for message in messages] != ["the body"]:
        raise Changed("Queue._messages no longer holds the queue's messages, with .body")


def _moto_access_tokens() -> None:
    from moto.cognitoidp.models import CognitoIdpUserPool
    from moto.cognitoidp.utils import flatten_attrs

    create = CognitoIdpUserPool.create_access_token
    takes_only(create, "self", "client_id", "username", "origin_jti")
    takes(CognitoIdpUserPool._get_user, "self", "username")
    takes(CognitoIdpUserPool.create_jwt, "self", "client_id", "username", "token_use")
    accepts(CognitoIdpUserPool.create_jwt, "extra_data")
    # The sign-in flows reach it through the pool, where the replacement is.
    calls(CognitoIdpUserPool, "self.create_access_token(")
    if flatten_attrs([{"Name": "email", "Value": "a@b.c"}]) != {"email": "a@b.c"}:
        raise Changed("flatten_attrs no longer makes {name: value} of a user's attributes")
    pool = CognitoIdpUserPool(_ACCOUNT, _REGION, "canary", {})
    is_a(pool.access_tokens, dict, "CognitoIdpUserPool.access_tokens")


def _moto_signing_key() -> None:
    from moto.cognitoidp import models, responses

    # Each pool signs with the key it holds as json_web_key (ours wins: a property of
    # the class), by joserfc, naming the key id we publish ours under.
    sets(models.CognitoIdpUserPool, "json_web_key")
    calls(models.CognitoIdpUserPool.create_jwt, "self.json_web_key", '"kid": "dummy"')
    # The keys' document is the bytes of one attribute of its response class.
    is_a(responses.CognitoIdpJsonWebKeyResponse.json_web_key, bytes, "its json_web_key")
    calls(responses.CognitoIdpJsonWebKeyResponse, "CognitoIdpJsonWebKeyResponse.json_web_key")


def _moto_pool_users() -> None:
    from moto.cognitoidp import models

    takes(models.CognitoIdpUser.__init__, "self", "user_pool_id", "username", "password", "status")
    user = models.CognitoIdpUser("pool", "ana", "secret", models.UserStatus("CONFIRMED"), [])
    has(user, "id", "username", "attributes", "status", "enabled", "password", "groups")
    is_a(user.groups, set, "CognitoIdpUser.groups")
    user.update_attributes([{"Name": "sub", "Value": "42"}])
    if {"Name": "sub", "Value": "42"} not in user.attributes:
        raise Changed("CognitoIdpUser.update_attributes([...]) no longer sets an attribute")
    pool = models.CognitoIdpUserPool(_ACCOUNT, _REGION, "canary", {})
    is_a(pool.users, dict, "CognitoIdpUserPool.users")
    is_a(pool.groups, dict, "CognitoIdpUserPool.groups")
    group = models.CognitoIdpGroup("pool", "operators", "", "", 0)
    has(group, "group_name", "users")
    is_a(models.CognitoIdpBackend(_REGION, _ACCOUNT).user_pools, dict, "user_pools")
    # An app client's ExplicitAuthFlows, as it was created with them (a sign-in by a
    # flow it does not allow is refused: infra/local/user_pool.py refused_flow).
    client = models.CognitoIdpUserPoolClient("pool", False, {"ExplicitAuthFlows": ["X"]})
    if client.extended_config.get("ExplicitAuthFlows") != ["X"]:
        raise Changed("CognitoIdpUserPoolClient.extended_config no longer holds its flows")
    is_a(pool.clients, dict, "CognitoIdpUserPool.clients")
    # A saved password is held as a hash that compares equal to the password: moto
    # compares them, never reads one as text.
    if not re.search(r"\.password\s*[!=]=", inspect.getsource(models.CognitoIdpBackend)):
        raise Changed("CognitoIdpBackend no longer checks a password by comparing it")


def _moto_lambda_invoke() -> None:
    from moto.awslambda_simple.models import LambdaSimpleBackend

    takes_only(
        LambdaSimpleBackend.invoke,
        "self",
        "function_name",
        "qualifier",
        "body",
        "headers",
        "response_headers",
    )


# -- waitress: the local HTTP server (infra/local/http_server.py) --------------------------


def _waitress_server() -> None:
    from waitress import wasyncore
    from waitress.server import create_server

    server: Any = create_server(
        lambda environ, start_response: [],
        host="127.0.0.1",
        port=0,
        threads=1,
        backlog=16,
        connection_limit=10,
        asyncore_use_poll=True,
        channel_timeout=60,
        cleanup_interval=30,
        max_request_body_size=1024,
        ident="",
    )
    try:
        has(server, "_map", "adj", "accepting", "readable", "channel_class", "trigger")
        has(server, "task_dispatcher", "effective_host", "effective_port", "run", "close")
        is_a(server._map, dict, "the server's _map")
        # http_server accepts in a loop of handle_accept until one adds no channel.
        before = len(server._map)
        server.handle_accept()
        if len(server._map) != before:
            raise Changed("handle_accept with no connection waiting added a channel")
        has(server.adj, "connection_limit", "sockets")
        has(server.trigger, "pull_trigger")
        takes(wasyncore.close_all, "map")
    finally:
        server.close()
        wasyncore.close_all(server._map)
        server.task_dispatcher.shutdown()


def _waitress_channel() -> None:
    from waitress.channel import HTTPChannel

    has(HTTPChannel, "parser_class", "task_class", "error_task_class")
    sets(HTTPChannel, "requests", "total_outbufs_len", "will_close", "last_activity")


def _waitress_parser() -> None:
    from waitress.adjustments import Adjustments
    from waitress.parser import HTTPRequestParser, ParsingError
    from waitress.receiver import ChunkedReceiver, FixedStreamReceiver
    from waitress.utilities import BadRequest, Error, RequestEntityTooLarge

    heads = []

    class Parser(HTTPRequestParser):
        def parse_header(self, header_plus: bytes) -> None:
            heads.append(header_plus)
            super().parse_header(header_plus)

    parser = Parser(Adjustments())
    parser.received(b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
    if len(heads) != 1 or not isinstance(parser.body_rcv, ChunkedReceiver):
        raise Changed("HTTPRequestParser no longer reads a chunked body with ChunkedReceiver")
    takes_only(HTTPRequestParser.parse_header, "self", "header_plus")
    sets(HTTPRequestParser, "body_rcv", "version", "command", "connection_close")
    takes(ChunkedReceiver.__init__, "self", "buf")
    takes_only(ChunkedReceiver.received, "self", "s")
    has(ChunkedReceiver, "getbuf", "__len__")
    sets(ChunkedReceiver, "chunk_remainder", "error")
    is_a(FixedStreamReceiver, type, "waitress.receiver.FixedStreamReceiver")
    is_a(ParsingError("x"), Exception, "ParsingError")
    for error in (BadRequest("x"), RequestEntityTooLarge("x")):
        is_a(error, Error, type(error).__name__)
        has(error, "code", "reason", "body")


def _waitress_tasks() -> None:
    from waitress.task import ErrorTask, WSGITask

    takes_only(WSGITask.build_response_header, "self")
    takes_only(ErrorTask.execute, "self")
    for task in (WSGITask, ErrorTask):
        has(task, "set_close_on_finish", "write")
        sets(task, "request", "status", "response_headers", "content_length")


# -- Chalice: `chalice local` as API Gateway (infra/chalice_local.py), and the tests -------


def _chalice_reloader() -> None:
    from chalice.cli.filewatch.stat import StatFileWatcher

    takes_only(StatFileWatcher._seed_mtime_cache, "self", "root_dir")
    takes_only(StatFileWatcher._single_pass_poll, "self", "root_dir", "callback")
    calls(StatFileWatcher, "self._seed_mtime_cache(", "self._single_pass_poll(")


def _chalice_gateway() -> None:
    from chalice import local

    takes(local.LocalGateway.__init__, "self", "app_object", "config")
    takes_only(
        local.LocalGateway._generate_lambda_event, "self", "method", "path", "headers", "body"
    )
    sets(local.LocalGateway, "_authorizer", "event_converter")
    calls(local.LocalGateway, "self._authorizer.authorize(", "self._generate_lambda_event(")
    # `chalice local` builds its gateway by the module's name, which the patch replaces.
    calls(local.ChaliceRequestHandler, "LocalGateway(")
    takes(local.LocalGatewayAuthorizer.__init__, "self", "app_object")
    takes_only(
        local.LocalGatewayAuthorizer.authorize, "self", "raw_path", "lambda_event", "lambda_context"
    )
    takes(local.RouteMatcher.__init__, "self", "route_urls")
    takes_only(local.RouteMatcher.match_route, "self", "url")
    has(local.MatchResult, "captured", "_replace")
    takes(local.LambdaEventConverter.__init__, "self", "route_matcher", "binary_types")
    for error in (local.NotAuthorizedError, local.ForbiddenError, local.InvalidAuthorizerError):
        if not issubclass(error, local.LocalGatewayException):
            raise Changed(f"{error.__name__} is no longer a LocalGatewayException")
        takes(error.__init__, "self", "headers", "body")
    has(local.LocalGatewayException, "CODE")


def _chalice_request_handler() -> None:
    import socketserver

    from chalice.local import ChaliceRequestHandler

    # Both are documented attributes of socketserver.StreamRequestHandler.
    if not issubclass(ChaliceRequestHandler, socketserver.StreamRequestHandler):
        raise Changed("ChaliceRequestHandler is no longer a socketserver.StreamRequestHandler")


def _chalice_threaded_app() -> None:
    from chalice import Chalice
    from chalice.local import LocalChalice

    if not issubclass(LocalChalice, Chalice):
        raise Changed("LocalChalice is no longer a Chalice")
    is_a(vars(LocalChalice).get("current_request"), property, "LocalChalice.current_request")


def _chalice_local_command() -> None:
    import click
    from chalice.cli import local

    is_a(local, click.Command, "chalice.cli.local")
    missing = {"stage", "port"} - {param.name for param in local.params}
    if missing:
        raise Changed(f"`chalice local` no longer has {', '.join(sorted(missing))}")


def _chalice_test_client() -> None:
    from chalice.config import Config
    from chalice.test import TestHTTPClient

    takes(TestHTTPClient.__init__, "self", "app", "config")
    sets(TestHTTPClient, "_config", "_local_gateway")
    calls(TestHTTPClient.request, "self._local_gateway.handle_request(")
    takes(Config.create, "chalice_stage")


def _chalice_multidict() -> None:
    from chalice.app import MultiDict

    values = MultiDict({"status": ["A", "B"]})
    if values["status"] != "B" or values.getlist("status") != ["A", "B"]:
        raise Changed("MultiDict({name: [values]}) no longer answers the last and getlist")


# -- botocore, PynamoDB, Powertools, cfn-lint: the tests ------------------------------------


def _botocore_api_call() -> None:
    from botocore import client

    takes_only(client.BaseClient._make_api_call, "self", "operation_name", "api_params")
    # Every operation's method calls it, as does PynamoDB (the wrap sees both).
    calls(client.ClientCreator._create_api_method, "self._make_api_call(")


def _botocore_credentials() -> None:
    from botocore.credentials import CredentialResolver, EnvProvider

    provider = EnvProvider()
    if CredentialResolver([provider]).providers != [provider]:
        raise Changed("CredentialResolver(providers).providers is no longer those providers")


def _pynamodb_client() -> None:
    from pynamodb.connection import Connection

    client = inspect.getattr_static(Connection, "client")
    is_a(client, property, "Connection.client")
    calls(Connection, "self.client.")


def _pynamodb_schema() -> None:
    from pynamodb.attributes import NumberAttribute
    from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
    from pynamodb.models import Model

    class ByShard(GlobalSecondaryIndex):
        class Meta:
            index_name = "byShard"
            projection = AllProjection()

        shard = NumberAttribute(hash_key=True)

    class Canary(Model):
        class Meta:
            table_name = "Canary"
            region = _REGION

        id = NumberAttribute(hash_key=True)
        shard = NumberAttribute()
        by_shard = ByShard()

    schema = Canary._get_schema()
    wanted = {"key_schema", "attribute_definitions", "global_secondary_indexes"}
    if not wanted <= set(schema):
        raise Changed(f"Model._get_schema() no longer answers {', '.join(sorted(wanted))}")
    (index,) = schema["global_secondary_indexes"]
    if index["index_name"] != "byShard" or schema["key_schema"][0]["AttributeName"] != "id":
        raise Changed("Model._get_schema() no longer names keys and indexes as CreateTable")


def _powertools_cold_start() -> None:
    from aws_lambda_powertools.logging import logger

    is_a(getattr(logger, "is_cold_start", None), bool, "logger.is_cold_start")
    calls(logger, "global is_cold_start")


def _cfn_lint_template() -> None:
    # cfn-lint ships no type information (mypy would not read it): looked up by name.
    decode = importlib.import_module("cfnlint.decode.decode").decode
    Template = importlib.import_module("cfnlint.template").Template

    takes(decode, "filename")
    takes(Template.__init__, "self", "filename", "template", "regions")
    has(Template, "transform")
    sets(Template, "template")


def _moto_streams() -> None:
    from moto.dynamodb.models.dynamo_type import Item
    from moto.dynamodb.models.table import StreamRecord, StreamShard, Table
    from moto.dynamodbstreams.models import DynamoDBStreamsBackend, ShardIterator

    takes_only(StreamShard.add, "self", "old", "new")
    takes_only(StreamShard.get, "self", "start", "quantity")
    sets(StreamShard, "items", "starting_sequence_number", "table")
    takes(StreamRecord.__init__, "self", "table", "stream_type", "event_name", "old", "new", "seq")
    has(StreamRecord, "to_json")
    sets(StreamRecord, "record")
    sets(Table, "stream_shard", "stream_specification")
    sets(Item, "attrs")
    takes(ShardIterator.__init__, "self", "streams_backend", "stream_shard", "shard_iterator_type")
    sets(ShardIterator, "sequence_number")
    if "_born" in dir(ShardIterator) or "_dropped" in dir(StreamShard):
        raise Changed("ShardIterator has a _born, or StreamShard a _dropped, of its own")
    takes_only(DynamoDBStreamsBackend.get_records, "self", "iterator_arn", "limit")
    sets(DynamoDBStreamsBackend, "shard_iterators")


def _moto_update_expressions() -> None:
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType, Item
    from moto.dynamodb.parsing import ast_nodes, validators
    from moto.dynamodb.parsing.executors import UpdateExpressionExecutor
    from moto.dynamodb.parsing.expressions import (  # type: ignore[attr-defined]
        UpdateExpressionParser,
    )

    from infra.local import expressions

    takes_only(UpdateExpressionParser.make, "expression_str")
    calls(DynamoDBBackend.update_item, "UpdateExpressionParser.make(", "UpdateExpressionValidator(")
    takes_only(
        validators.Validator.__init__,
        "self",
        "expression",
        "expression_attribute_names",
        "expression_attribute_values",
        "item",
        "table",
    )
    # What our __init__ sets instead, and the loop our validate runs in its place.
    calls(validators.Validator.__init__, "self.processors = self.get_ast_processors()")
    calls(validators.Validator.validate, "processor.traverse(n)")
    base = ast_nodes.DepthFirstTraverser  # type: ignore[attr-defined]  # moto: untyped
    calls(base.traverse, "self.traverse_node_recursively(node)")
    text = "SET #a[1].b = if_not_exists(#a, :v) + :n, c = list_append(c, :l) REMOVE d ADD e :s"
    tree = UpdateExpressionParser.make(text)
    kinds = {type(leaf) for leaf in _leaves(tree, ast_nodes.Node)}  # type: ignore[attr-defined]
    if not kinds <= {str, int, bool, type(None)}:
        raise Changed(f"a parsed update expression holds {kinds}: not leaves to share")
    table = _canary_table(DynamoDBBackend(_REGION, _ACCOUNT))
    empty: Any = None  # no item: the processors are built, not run
    for processor in validators.UpdateExpressionValidator(tree, {}, {}, empty, table).processors:
        for name in ("traverse", "traverse_node_recursively", "process", "nodes_to_be_processed"):
            if getattr(type(processor), name) is not getattr(base, name):
                raise Changed(f"{type(processor).__name__}.{name} is its own")
    text = "SET #n = #n + :one, #m.#k = :one REMOVE #r"
    names, values = {"#n": "n", "#m": "m", "#k": "k", "#r": "r"}, {":one": {"N": "1"}}
    written = []
    for validator in (validators.UpdateExpressionValidator, expressions._ValidatedOnCopy):
        item = Item(
            DynamoType({"N": "1"}), None, {"n": {"N": "2"}, "m": {"M": {}}, "r": {"S": "x"}}
        )
        for _ in range(2):  # ours skips the text's checks the second time
            tree = validator(UpdateExpressionParser.make(text), names, values, item, table)
            UpdateExpressionExecutor(tree.validate(), item, names).execute()
        written.append(item.to_json())
    if written[0] != written[1]:
        raise Changed(f"moto's validation writes {written[0]}, ours {written[1]}")


def _leaves(node: Any, node_class: type) -> list:
    children = node.children or []
    return [
        leaf
        for child in children
        for leaf in (_leaves(child, node_class) if isinstance(child, node_class) else [child])
    ]


def _moto_conditions() -> None:
    from moto.dynamodb.comparisons import ConditionExpressionParser

    takes_only(ConditionExpressionParser.parse, "self")
    takes_only(
        ConditionExpressionParser.__init__,
        "self",
        "condition_expression",
        "expression_attribute_names",
        "expression_attribute_values",
    )
    # Its only effects besides the answer, which ours sets again from what it kept.
    calls(
        ConditionExpressionParser.parse,
        "self.expr_attr_names_found.extend(",
        "self.expr_attr_values_found.extend(",
    )
    parser = ConditionExpressionParser(
        "#a = :v AND b < :w", {"#a": "a"}, {":v": {"S": "x"}, ":w": {"N": "2"}}
    )
    op = parser.parse()
    if parser.expr_attr_names_found != ["#a", "b"] or parser.expr_attr_values_found != [":v", ":w"]:
        raise Changed("ConditionExpressionParser.parse no longer notes the names and values used")
    before = vars(op).copy()
    op.expr(None)
    if vars(op) != before:
        raise Changed("a parsed condition changes when evaluated: it cannot be kept")


def _moto_message_received() -> None:
    from moto.sqs.models import Message, SQSBackend

    takes(Message.mark_received, "self", "visibility_timeout")
    calls(SQSBackend.receive_message, "message.mark_received(")


_EMULATOR = ("infra/local/emulator.py",)
_HTTP = ("infra/local/http_server.py",)
_CHALICE_LOCAL = ("infra/chalice_local.py",)

USES = (
    PrivateUse(
        "moto DynamoDBBackend.transact_write_items, replaced",
        "moto",
        _EMULATOR,
        "moto undoes a failed transaction from deep copies of every table it touches; no "
        "setting or hook changes how its backend runs one",
        _moto_transactions,
        (
            "DynamoDBBackend.transact_write_items",
            "moto.dynamodb.exceptions",
            "moto.dynamodb.comparisons",
        ),
    ),
    PrivateUse(
        "moto Table.query, replaced (query_one_partition), and an attribute kept on Table",
        "moto",
        _EMULATOR,
        "moto sorts every item of a table for a query on an index; no option narrows it to "
        "the partition asked for",
        _moto_query,
        ("Table.query", "Table.all_items", "table._index_partitions"),
    ),
    PrivateUse(
        "moto DynamoResult.execute_result, replaced (plain_answer), and the streams' "
        "GetRecords answered through it",
        "moto",
        _EMULATOR,
        "moto writes every answer through a serializer that walks each value against the "
        "service's model; no setting skips it for answers that are DynamoDB JSON already",
        _moto_answers,
        (
            "dynamodb_responses.DynamoResult.execute_result",
            "DynamoDBStreamsHandler.get_records",
            "DynamoDBStreamsHandler._get_param",
            "moto.dynamodb.responses",
            "moto.dynamodbstreams.responses",
            "moto.core.responses",
        ),
    ),
    PrivateUse(
        "moto method_names_from_class, cached",
        "moto",
        _EMULATOR,
        "moto lists a response class's methods on every request; nothing caches it",
        _moto_method_names,
        ("moto_responses.method_names_from_class",),
    ),
    PrivateUse(
        "moto model_data: DynamoDB models not tracked",
        "moto",
        _EMULATOR,
        "moto keeps every model it builds for its dashboard, so no item is ever freed; no "
        "setting turns the tracking off",
        _moto_model_tracking,
        ("moto.core.model_instances",),
    ),
    PrivateUse(
        "moto dynamo_type's serializer and deserializer, replaced (exact numbers)",
        "moto",
        _EMULATOR,
        "moto converts items through boto3's 38-digit context, which fails on numbers "
        "DynamoDB takes; its conversions are module attributes, not options",
        _moto_numbers,
        (
            "dynamo_type.serializer",
            "dynamo_type.deserializer",
            "moto.dynamodb.models.dynamo_type",
        ),
    ),
    PrivateUse(
        "boto3 TypeSerializer._serialize_n and TypeDeserializer._deserialize_n, overridden",
        "boto3",
        _EMULATOR,
        "boto3's conversions trap a 39th digit, even a zero; their number steps are the one "
        "place to read and write numbers exactly",
        _boto3_number_conversions,
        ("_ExactSerializer._serialize_n", "_ExactDeserializer._deserialize_n"),
    ),
    PrivateUse(
        "moto's server app (moto.moto_server.werkzeug_app)",
        "moto",
        _EMULATOR,
        "moto's ThreadedMotoServer takes no WSGI middleware (the emulator's per-table "
        "locks, its snapshots, its meter) and dispatches every request under one lock",
        _moto_server_app,
        ("moto.moto_server.werkzeug_app",),
    ),
    PrivateUse(
        "moto backends by account and region (dynamodb_backends, sqs_backends)",
        "moto",
        (*_EMULATOR, "infra/local/partition_writes.py"),
        "the emulator saves, restores and meters the backends' own state; moto's server "
        "API has no export or import of it",
        _moto_backends,
        ("moto.core", "moto.dynamodb.models", "moto.sqs.models"),
    ),
    PrivateUse(
        "moto KMS backend's keys: a key's id, arn and material set (kms_backends)",
        "moto",
        ("infra/local/kms_keys.py",),
        "a key's material is made at random when moto creates it, and moto implements no "
        "import of a symmetric key's material: the local stack keeps its key across "
        "restarts (the secrets encrypted with it are kept with the data) by putting the "
        "saved id and material back",
        _moto_kms_keys,
        ("moto.core", "moto.kms.models"),
    ),
    PrivateUse(
        "moto DynamoDB Table and Item read directly",
        "moto",
        (
            *_EMULATOR,
            "infra/local/partition_writes.py",
            "infra/local/persistence.py",
            "tests/integration/test_local_infra.py",
        ),
        "snapshots, the partition meter and the transactions work on moto's items "
        "holding the table's lock; going through the HTTP API would re-enter that lock",
        _moto_tables,
        ("moto.dynamodb.models.table", "moto.dynamodb.models.dynamo_type", "moto.core"),
    ),
    PrivateUse(
        "moto SQS Queue._messages read, Message added",
        "moto",
        ("infra/local/persistence.py",),
        "saving a queue must not receive its messages (that hides them); no public call "
        "lists a queue's messages as they are",
        _moto_queue_messages,
        ("queue._messages", "moto.sqs.models"),
    ),
    PrivateUse(
        "moto CognitoIdpUserPool.create_access_token, replaced",
        "moto",
        ("infra/local/user_pool.py",),
        "moto runs no Lambda trigger, so its tokens lack the claims the template's pre "
        "token generation trigger adds; nothing else builds its access tokens",
        _moto_access_tokens,
        (
            "CognitoIdpUserPool.create_access_token",
            "CognitoIdpUserPool._get_user",
            "moto.cognitoidp.utils",
        ),
    ),
    PrivateUse(
        "moto CognitoIdpUserPool.json_web_key and CognitoIdpJsonWebKeyResponse.json_web_key, "
        "replaced",
        "moto",
        ("infra/local/user_pool.py",),
        "moto signs every pool's tokens with a private key its package ships, and no "
        "call sets a pool's key; anyone could sign an operator's token with it",
        _moto_signing_key,
        (
            "CognitoIdpUserPool.json_web_key",
            "CognitoIdpJsonWebKeyResponse.json_web_key",
            "moto.cognitoidp.responses",
        ),
    ),
    PrivateUse(
        "moto Cognito users built and read directly, and app clients' flows read",
        "moto",
        ("infra/local/user_pool.py",),
        "a restart must keep each user's sub and password hash (AdminCreateUser makes a "
        "new sub and takes passwords in clear); moto checks no client's ExplicitAuthFlows",
        _moto_pool_users,
        ("moto.cognitoidp.models", "moto.core"),
    ),
    PrivateUse(
        "moto LambdaSimpleBackend.invoke, wrapped",
        "moto",
        ("tests/integration/test_order_events.py",),
        "moto's Lambda without Docker keeps no record of what each invoke delivered",
        _moto_lambda_invoke,
        ("LambdaSimpleBackend.invoke", "moto.awslambda_simple.models"),
    ),
    PrivateUse(
        "waitress server internals (create_server, _map, adj, readable, handle_accept, trigger)",
        "waitress",
        _HTTP,
        "waitress documents serve() alone: the stack needs its port before it serves, room "
        "made at the connection limit, the waiting connections accepted many a round, and "
        "a drain when it stops",
        _waitress_server,
        ("server._map", "self._server._map", "waitress.server", "waitress.wasyncore"),
    ),
    PrivateUse(
        "waitress HTTPChannel read at the connection limit, and its classes replaced",
        "waitress",
        _HTTP,
        "waitress has no option to close an idle connection for a new one, nor to answer "
        "its own errors in another format",
        _waitress_channel,
        ("waitress.channel",),
    ),
    PrivateUse(
        "waitress HTTPRequestParser and ChunkedReceiver, subclassed",
        "waitress",
        _HTTP,
        "waitress reads a folded framing header and a chunk past the body limit; no "
        "option refuses them",
        _waitress_parser,
        ("waitress.parser", "waitress.receiver", "waitress.utilities"),
    ),
    PrivateUse(
        "waitress WSGITask and ErrorTask, subclassed",
        "waitress",
        _HTTP,
        "waitress 3.0.2 never closes a connection its parser marked; its error answers are "
        "text, not the platform's format",
        _waitress_tasks,
        ("waitress.task",),
    ),
    PrivateUse(
        "Chalice StatFileWatcher._seed_mtime_cache and _single_pass_poll, replaced",
        "chalice",
        _CHALICE_LOCAL,
        "Chalice's reloader watches every file of the checkout, data and .pyc included; "
        "it has no option for what to watch",
        _chalice_reloader,
        (
            "StatFileWatcher._seed_mtime_cache",
            "StatFileWatcher._single_pass_poll",
            "chalice.cli.filewatch.stat",
        ),
    ),
    PrivateUse(
        "Chalice LocalGateway replaced in chalice.local, and subclassed",
        "chalice",
        (*_CHALICE_LOCAL, "tests/support/served_app.py"),
        "`chalice local` answers a bad token by dropping the connection; it takes no "
        "gateway class, so its module's is replaced",
        _chalice_gateway,
        (
            "chalice.local.LocalGateway",
            "ApiGatewayLocalGateway._authorizer",
            "ApiGatewayLocalGateway._generate_lambda_event",
            "chalice.local",
        ),
    ),
    PrivateUse(
        "Chalice ChaliceRequestHandler's wbufsize and disable_nagle_algorithm, set",
        "chalice",
        _CHALICE_LOCAL,
        "`chalice local` writes an answer's head and body apart (40 ms a kept-alive "
        "answer); it has no option for its handler's buffering",
        _chalice_request_handler,
        (
            "chalice.local.ChaliceRequestHandler.wbufsize",
            "chalice.local.ChaliceRequestHandler.disable_nagle_algorithm",
        ),
    ),
    PrivateUse(
        "Chalice LocalChalice mixed into an app's class",
        "chalice",
        ("tests/support/served_app.py",),
        "an app served from many threads needs the request per thread, as `chalice local` "
        "keeps it; Chalice keeps one",
        _chalice_threaded_app,
        ("chalice.local",),
    ),
    PrivateUse(
        "Chalice `chalice local` command's options read (chalice.cli.local)",
        "chalice",
        _CHALICE_LOCAL,
        "the reloader's worker serves without click's context; its options are read by "
        "the same command again",
        _chalice_local_command,
        ("chalice.cli",),
    ),
    PrivateUse(
        "Chalice TestHTTPClient's _local_gateway and _config, replaced",
        "chalice",
        ("tests/support/api.py", "tests/integration/test_local_infra.py", *_CHALICE_LOCAL),
        "chalice.test's client takes no gateway class; the tests need API Gateway's answers "
        "(401s, 403 for no route) as the local stack gives them",
        _chalice_test_client,
        (
            "ApiGatewayTestClient._config",
            "ApiGatewayTestClient._local_gateway",
            "chalice.test",
            "chalice.config",
        ),
    ),
    PrivateUse(
        "Chalice MultiDict built for a request",
        "chalice",
        ("tests/unit/test_lists.py",),
        "a request's query_params are a MultiDict, which the chalice package does not export",
        _chalice_multidict,
        ("chalice.app",),
    ),
    PrivateUse(
        "botocore BaseClient._make_api_call, wrapped",
        "botocore",
        ("tests/integration/conftest.py",),
        "botocore's events are per client or session; the check must see every call of "
        "every function's clients, PynamoDB's included, wherever they are built",
        _botocore_api_call,
        ("BaseClient._make_api_call", "botocore.client"),
    ),
    PrivateUse(
        "botocore credential providers (EnvProvider, CredentialResolver.providers)",
        "botocore",
        ("tests/unit/test_cold_start.py",),
        "the test checks the layer's session reads credentials from the environment only; "
        "the resolver's providers are where that shows",
        _botocore_credentials,
        ("botocore.credentials",),
    ),
    PrivateUse(
        "PynamoDB Connection.client, wrapped",
        "pynamodb",
        ("tests/integration/conftest.py", "tests/support/metering.py"),
        "PynamoDB builds its botocore client lazily and offers no hook when it does",
        _pynamodb_client,
        ("Connection.client",),
    ),
    PrivateUse(
        "PynamoDB Model._get_schema()",
        "pynamodb",
        ("tests/release/test_release.py",),
        "the models' keys and indexes as CreateTable would send them, compared with the "
        "template's; PynamoDB builds them only there",
        _pynamodb_schema,
        ("model._get_schema",),
    ),
    PrivateUse(
        "Powertools logging.logger's is_cold_start, set",
        "aws-lambda-powertools",
        ("tests/integration/test_warm_up.py",),
        "Powertools keeps whether the next invocation is a cold start in a module global, "
        "with no way to reset it",
        _powertools_cold_start,
        ("powertools_logger.is_cold_start", "aws_lambda_powertools.logging.logger"),
    ),
    PrivateUse(
        "cfn-lint decode and Template.transform",
        "cfn-lint",
        ("tests/release/test_monitoring.py",),
        "the test compares cfn-lint's expansion of the template's loops with ours; its "
        "command line prints problems, never the expanded template",
        _cfn_lint_template,
        ("cfnlint.decode.decode", "cfnlint.template"),
    ),
    PrivateUse(
        "moto DynamoDB Streams: StreamShard.add and .get, ShardIterator.__init__ and "
        "DynamoDBStreamsBackend.get_records replaced, attributes kept on a shard and an iterator",
        "moto",
        ("infra/local/streams.py",),
        "moto records the writes of a transaction it undoes and of data restored at start, "
        "records writes that change nothing and keeps every record and iterator for ever; "
        "no setting bounds or takes back its stream records",
        _moto_streams,
        (
            "StreamShard.add",
            "StreamShard.get",
            "ShardIterator.__init__",
            "ShardIterator._born",
            "ShardIterator.sequence_number",
            "DynamoDBStreamsBackend.get_records",
            "shard._dropped",
            "moto.dynamodb.models.dynamo_type",
            "moto.dynamodb.models.table",
            "moto.dynamodbstreams.models",
        ),
    ),
    PrivateUse(
        "moto update expressions: UpdateExpressionParser.make cached, the models' "
        "UpdateExpressionValidator replaced (its passes run on a copy, the text's checks once)",
        "moto",
        ("infra/local/expressions.py",),
        "moto parses and validates an update expression afresh for every item, on a deep "
        "copy, by passes that walk the tree again at every node; nothing keeps a parse",
        _moto_update_expressions,
        (
            "UpdateExpressionParser.make",
            "models.UpdateExpressionValidator",
            "processor._processing_map",
            "moto.dynamodb.models",
            "moto.dynamodb.parsing.ast_nodes",
            "moto.dynamodb.parsing.expressions",
            "moto.dynamodb.parsing.validators",
        ),
    ),
    PrivateUse(
        "moto ConditionExpressionParser.parse, replaced (kept by text, names and values)",
        "moto",
        ("infra/local/expressions.py",),
        "moto parses every item's condition from its text, twice in a transaction; nothing "
        "keeps a parse",
        _moto_conditions,
        ("ConditionExpressionParser.parse", "moto.dynamodb.comparisons"),
    ),
    PrivateUse(
        "moto SQS Message.mark_received, wrapped (slowed) in a test",
        "moto",
        ("tests/integration/test_local_event_sources.py",),
        "the test widens the gap between moto's visibility check and its marking a message "
        "received, to show two receivers never get one message; no public call reaches it",
        _moto_message_received,
        ("Message.mark_received", "moto.sqs.models"),
    ),
)


def run() -> dict[str, str | None]:
    """{entry's name: what changed, or None}, for every entry."""
    changed: dict[str, str | None] = {}
    for use in USES:
        try:
            use.check()
            changed[use.name] = None
        except Changed as exc:
            changed[use.name] = str(exc)
        except Exception as exc:  # noqa: BLE001 - a name gone, a call refused: changed too
            changed[use.name] = f"{type(exc).__name__}: {exc}"
    return changed


def main(argv: list[str]) -> None:
    changed = run()
    if argv == ["--json"]:
        print(json.dumps(changed))
        return
    for use in USES:
        what = changed[use.name]
        if what is not None:
            print(use.changed(what))
    sys.exit(1 if any(changed.values()) else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
