"""The JSON lines a Powertools logger writes, captured as they are written."""

import contextlib
import json
import logging


@contextlib.contextmanager
def captured_lines(logger):
    """Every line `logger` writes inside the block, formatted when written (in the thread
    that writes it, with that invocation's keys), parsed as JSON."""
    lines: list[dict] = []

    class Capture(logging.Handler):
        def emit(self, record):
            text = self.format(record)
            assert "\n" not in text, text
            lines.append(json.loads(text))

    handler = Capture()
    handler.setFormatter(logger.registered_formatter)
    # The standard library's logger that Powertools' Logger writes through, by its name.
    underlying = logging.getLogger(logger.name)
    underlying.addHandler(handler)
    try:
        yield lines
    finally:
        underlying.removeHandler(handler)
