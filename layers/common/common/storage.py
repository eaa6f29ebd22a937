"""What every PynamoDB model shares: where its table is and how money is stored."""

from decimal import Decimal

from pynamodb.attributes import Attribute
from pynamodb.constants import NUMBER

from common import config


def model_meta(logical_id: str) -> type:
    """A PynamoDB Meta for the table declared as `logical_id` in infra/template.yaml.

    The endpoint is not set here: botocore reads AWS_ENDPOINT_URL_DYNAMODB, which the
    local stack points at the emulator and which is unset on AWS.
    """
    return type("Meta", (), {"table_name": config.table_name(logical_id),
                             "region": config.aws_region()})


class DecimalAttribute(Attribute[Decimal]):
    """A DynamoDB number read back as Decimal: NumberAttribute would hand back a float."""

    attr_type = NUMBER

    def serialize(self, value: Decimal) -> str:
        return str(value)

    def deserialize(self, value: str) -> Decimal:
        return Decimal(value)
