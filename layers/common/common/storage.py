"""What every PynamoDB model shares: where its table is and how money is stored."""

from decimal import Decimal

from pynamodb.attributes import Attribute
from pynamodb.constants import NUMBER
from pynamodb.exceptions import DoesNotExist, PynamoDBException
from pynamodb.models import Model

from common import config
from common.errors import not_found


def model_meta(logical_id: str) -> type:
    """A PynamoDB Meta for the table declared as `logical_id` in infra/template.yaml.

    The endpoint is not set here: botocore reads AWS_ENDPOINT_URL_DYNAMODB, which the
    local stack points at the emulator and which is unset on AWS.
    """
    return type("Meta", (), {"table_name": config.table_name(logical_id),
                             "region": config.aws_region()})


class JsonModel(Model):
    """A model whose API representation is its attributes under their stored names.

    Each attribute's attr_name is its JSON field name, so a field is named in one place.
    Unset optional attributes come out as null, as the API promises.
    """

    def to_json(self) -> dict:
        attributes = self.get_attributes()
        # vars(type(self)) keeps declaration order: id first, as the model reads.
        return {attributes[name].attr_name: getattr(self, name)
                for name in vars(type(self)) if name in attributes}


class DecimalAttribute(Attribute[Decimal]):
    """A DynamoDB number read back as Decimal: NumberAttribute would hand back a float."""

    attr_type = NUMBER

    def serialize(self, value: Decimal) -> str:
        return str(value)

    def deserialize(self, value: str) -> Decimal:
        return Decimal(value)


def get_or_404(model_cls: type[Model], key, code: str, what: str) -> Model:
    """The item with this key, or the platform's 404 (`key` None: an id no item can have)."""
    if key is not None:
        try:
            return model_cls.get(key, consistent_read=True)
        except DoesNotExist:
            pass
    raise not_found(code, what, key)


def all_by_id(model_cls: type[Model]) -> list:
    """Every item, oldest id first. A scan: fine for catalogs of thousands, not millions."""
    return sorted(model_cls.scan(consistent_read=True), key=lambda item: item.id)


def insert(item: Model) -> Model:
    """Save a new item whose id came from common.ids.next_id.

    The counter never hands out an id twice; the condition makes that a checked fact
    rather than an assumption (it would catch a counter reset by hand).
    """
    item.save(condition=type(item).id.does_not_exist())
    return item


def condition_failed(error: PynamoDBException) -> bool:
    return error.cause_response_code == "ConditionalCheckFailedException"
