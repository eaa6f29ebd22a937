"""What every repository shares: binding models to their tables, money, ids, mapping.

Repositories are the only modules that know PynamoDB. They take domain objects in and
give domain objects back; these helpers do the mapping between a model and a domain
dataclass whose fields have the same names.
"""

import dataclasses
from decimal import Decimal
from typing import Any, Protocol, cast

from pynamodb.attributes import Attribute, MapAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.connection import Connection
from pynamodb.constants import NUMBER
from pynamodb.exceptions import DoesNotExist, PynamoDBException
from pynamodb.indexes import GlobalSecondaryIndex, KeysOnlyProjection
from pynamodb.models import MetaProtocol, Model

from common.platform import aws
from common.platform.history import Entry
from common.platform.settings import Cloud
from common.storage import shards

# The partitions of every table's byShard index: creates of one kind spread over them
# (docs/capacity.md: 16 x 1,000 writes a second).
LIST_SHARDS = 16


class TableMeta(MetaProtocol, Protocol):
    """A model's Meta here: PynamoDB's, and the table's logical id in the template."""

    logical_id: str


def model_meta(logical_id: str) -> TableMeta:
    """A PynamoDB Meta for the table declared as `logical_id` in infra/template.yaml.

    Until bound, a model points at the table's local name (its logical id). (A class that
    sets only some of MetaProtocol's attributes: PynamoDB defaults the others.)
    """
    return cast(TableMeta, type("Meta", (), {"logical_id": logical_id, "table_name": logical_id}))


def bind(cloud: Cloud, *models: type[Model]) -> None:
    """Point each model at its table as the settings name it, with the client settings of
    common.platform.aws.DYNAMODB_CONFIG (PynamoDB's Meta: the pool, timeouts, retries).

    PynamoDB keeps a model's table and connection on its class and builds the connection's
    client on its first call: the function's warm-up makes that call (common.platform.lambda_init).
    The endpoint is not set here: botocore reads AWS_ENDPOINT_URL_DYNAMODB, which the local
    stack points at the emulator and which is unset on AWS. Lambda hands a function its
    credentials in the environment for the life of its sandbox: given to the Meta, they
    spare each new client botocore's whole provider chain.
    """
    credentials = aws.environment_credentials()
    for model in models:
        meta = cast(TableMeta, model.Meta)  # every model of ours has model_meta's
        meta.table_name = cloud.table_name(meta.logical_id)
        meta.region = cloud.region
        for name, value in {**aws.PYNAMODB_CLIENT, **credentials}.items():
            setattr(meta, name, value)


def connection(cloud: Cloud) -> Connection:
    """A PynamoDB connection of its own (transactions take one), as the models' are."""
    credentials = aws.environment_credentials()
    client = aws.PYNAMODB_CLIENT
    return Connection(
        region=cloud.region,
        connect_timeout_seconds=client["connect_timeout_seconds"],
        read_timeout_seconds=client["read_timeout_seconds"],
        max_pool_connections=client["max_pool_connections"],
        max_retry_attempts=client["max_retry_attempts"],
        aws_access_key_id=credentials.get("aws_access_key_id"),
        aws_secret_access_key=credentials.get("aws_secret_access_key"),
        aws_session_token=credentials.get("aws_session_token"),
    )


class HistoryEntryAttribute(MapAttribute):
    """One change of an item's status (common.platform.history.Entry), in its item's history. Its
    names are one letter: an item carries up to a hundred of them (bench/README.md)."""

    status = UnicodeAttribute(attr_name="s")
    fecha = UnicodeAttribute(attr_name="f")
    rol = UnicodeAttribute(attr_name="r", null=True)


def history_entry(entry: Entry) -> HistoryEntryAttribute:
    return HistoryEntryAttribute(status=entry.status, fecha=entry.fecha, rol=entry.rol)


def appended(history: Any, entry: Entry) -> Any:
    """The update action that appends `entry` to an item's history (a ListAttribute of
    HistoryEntryAttribute), one the item may not have yet (written before history was kept)."""
    return history.set((history | []).append([history_entry(entry)]))


def entries(stored: list[HistoryEntryAttribute] | None) -> list[Entry]:
    """An item's kept changes; none for an item written before history was kept."""
    return [Entry(e.status, e.fecha, e.rol) for e in stored or []]


class DecimalAttribute(Attribute[Decimal]):
    """A DynamoDB number read back as Decimal: NumberAttribute would hand back a float."""

    attr_type = NUMBER

    def serialize(self, value: Decimal) -> str:
        return str(value)

    def deserialize(self, value: str) -> Decimal:
        return Decimal(value)


class ListIndex(GlobalSecondaryIndex):
    """Every item's id, by `shard` (the id modulo LIST_SHARDS), in id order: whole lists
    merge the shards, so a page follows the ids that exist, never the counter's blocks
    (common.storage.id_blocks). Keys only: an update that keeps the id writes nothing here."""

    class Meta:
        index_name = "byShard"
        projection = KeysOnlyProjection()

    shard = NumberAttribute(hash_key=True)
    id = NumberAttribute(range_key=True)


def listed[M: Model](item: M) -> M:
    """The item with its place in the byShard index (ListIndex), which a put must carry:
    an item put without it drops out of whole lists. (Every listed model declares
    `shard` and `id`; PynamoDB's Model does not, hence the cast.)"""
    declared = cast(Any, item)
    declared.shard = shards.shard_of(declared.id, LIST_SHARDS)
    return item


def to_domain[D](item: Model, domain_cls: type[D]) -> D:
    """The domain object of a stored item: each field read from the attribute of its name;
    a field the object works out itself (init=False: a product's available units) is not
    read, whatever the item holds."""
    fields = dataclasses.fields(cast(Any, domain_cls))  # a dataclass: every domain type is
    return domain_cls(**{f.name: getattr(item, f.name) for f in fields if f.init})


def to_item[M: Model](model_cls: type[M], entity: Any) -> M:
    """The item of a domain object: each field in the attribute of its name, but those the
    object works out itself and never stores (metadata `derived`: a shipment's `atrasado`)."""
    return model_cls(
        **{
            f.name: getattr(entity, f.name)
            for f in dataclasses.fields(entity)
            if not f.metadata.get("derived")
        }
    )


def get_item[M: Model](model_cls: type[M], ident: int) -> M | None:
    """The item with this id (a possible one: Repository.known), read consistently, or
    None."""
    try:
        return model_cls.get(ident, consistent_read=True)
    except DoesNotExist:
        return None


def insert(item: Model) -> None:
    """Save a new item whose id came from common.storage.id_blocks.

    No id is handed out twice; the condition makes that a checked fact rather than an
    assumption (it would catch a counter reset by hand).
    """
    item.save(condition=type(item).get_attributes()["id"].does_not_exist())


def condition_failed(error: PynamoDBException) -> bool:
    return error.cause_response_code == "ConditionalCheckFailedException"
