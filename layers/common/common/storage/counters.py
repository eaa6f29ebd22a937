"""Where ids come from: a per-entity atomic counter, advanced a block at a time
(common.storage.id_blocks); positive, unique, never reused.

DynamoDB has no auto-increment; an UpdateItem with ADD is atomic on the server, so
parallel reservations each get their own block.
"""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from common.storage.tables import model_meta


class CounterModel(Model):
    Meta = model_meta("CountersTable")

    name = UnicodeAttribute(hash_key=True)
    value = NumberAttribute(default=0)


def reserve(counter: str, size: int) -> int:
    """Advance the counter by `size`; returns its new value, the last id of the block."""
    item = CounterModel(counter)
    item.update(actions=[CounterModel.value.add(size)])
    return int(item.value)
