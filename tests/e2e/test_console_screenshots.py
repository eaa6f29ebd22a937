"""The script behind docs/console/*.png keeps working: it starts its own stack, makes its
demo data and writes every screenshot (here to a scratch folder, not docs/)."""

import struct

from tests.support.console_screenshots import OUT, take


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_screenshots_script_writes_every_screenshot_the_docs_show(tmp_path):
    shots = take(tmp_path)
    # Every screenshot the docs show (customer-orders.png only once the gateway applies
    # roles: the script says so and takes it then).
    assert {path.name for path in OUT.glob("*.png")} <= {shot.name for shot in shots}
    for shot in shots:
        width, height = _png_size(shot.read_bytes())
        assert width == (375 if shot.name.startswith("phone") else 1280), shot.name
        assert height >= 600, shot.name
