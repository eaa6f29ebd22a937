"""What an id is: a positive integer from a counter, a block at a time (common.storage.id_blocks),
never reused.

Anything outside 1..MAX_ID cannot exist; keeping such numbers out of DynamoDB keys
avoids a 500 for an absurd id, and they are simply not found.
"""

MAX_ID = 2**63 - 1


def possible_id(ident: int) -> bool:
    return 0 < ident <= MAX_ID


def ascii_digits(text: str) -> bool:
    """Whether `text` is ASCII digits alone (an id, a count): str.isdigit() takes other
    scripts' digits too ("²", "١", "１"), which int() either refuses (a 500) or reads as a
    number (another item's id)."""
    return text.isascii() and text.isdigit()
