"""A fake OCR engine that takes a while to load, as real weights do, loadable by name as
``"tests.fakes.slow_load:SlowLoadOcr"``: the probes must say "not ready" meanwhile.
``FAKE_OCR_LOAD_SECONDS`` (environment) is the load time in seconds."""

from __future__ import annotations

import os
import time

from tests.fakes.ocr import TextOcr


class SlowLoadOcr(TextOcr):
    """TextOcr that sleeps ``FAKE_OCR_LOAD_SECONDS`` in its constructor."""

    def __init__(self, **options: object) -> None:
        time.sleep(float(os.environ.get("FAKE_OCR_LOAD_SECONDS", "0")))
        super().__init__(**options)
