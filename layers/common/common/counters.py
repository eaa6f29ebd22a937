"""Where ids come from: a per-entity atomic counter; positive, increasing, never reused.

DynamoDB has no auto-increment; an UpdateItem with ADD is atomic on the server, so
parallel creates each get their own number.
"""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.models import Model

from common.storage import model_meta


class CounterModel(Model):
    Meta = model_meta("CountersTable")

    name = UnicodeAttribute(hash_key=True)
    value = NumberAttribute(default=0)


def next_id(counter: str) -> int:
    item = CounterModel(counter)
    item.update(actions=[CounterModel.value.add(1)])
    return int(item.value)


def current(counter: str) -> int:
    """The last id handed out (0 before the first): no id above it exists yet."""
    try:
        return int(CounterModel.get(counter, consistent_read=True).value)
    except CounterModel.DoesNotExist:
        return 0
