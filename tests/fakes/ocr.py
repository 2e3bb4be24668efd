"""Fake OCR engines for tests, loadable by name as ``"tests.fakes.ocr:Class"`` (models.registry).

They implement models.ocr.OcrEngine for real. ``TextOcr`` reads the "text" of a page from the
PNG text chunk ``ocr_text`` that ``tests.support.docs.png_with_text`` writes (so each test decides what
the page says), else answers a fixed invoice. Environment variables tune them for tests that run
the server as a subprocess: ``FAKE_OCR_SECONDS`` (sleep per page).
"""

from __future__ import annotations

import os
import time

from models.ocr import OcrEngine, OcrLine
from pipeline.errors import OcrBusy, TemporaryError

DEFAULT_TEXT = """ACME Tools GmbH
Invoice No: INV-2024-001
Invoice Date: 2024-03-05
Description Qty Price Amount
Hammer 2 10.00 20.00
Subtotal 100.00
VAT 19% 19.00
Total EUR 119.00"""


class TextOcr(OcrEngine):
    """Returns one line per line of the page's ``ocr_text`` (or DEFAULT_TEXT), confidence 0.9."""

    name = "fake-ocr"

    def __init__(self, lang: str = "ch", **_: object) -> None:
        self.lang = lang
        self.seconds = float(os.environ.get("FAKE_OCR_SECONDS", "0"))

    def recognize(self, image) -> list[OcrLine]:
        if self.seconds:
            time.sleep(self.seconds)
        text = (getattr(image, "info", None) or {}).get("ocr_text", DEFAULT_TEXT)
        lines = []
        for row, line in enumerate(text.splitlines()):
            if line.strip():
                y = 20 + row * 30
                lines.append(OcrLine(line, (20.0, float(y), 20.0 + 9 * len(line), y + 20.0), 0.9))
        return lines


class CrashOcr(OcrEngine):
    """Raises RuntimeError on every page, as an engine that cannot run would."""

    name = "fake-crash-ocr"

    def __init__(self, **_: object) -> None:
        pass

    def recognize(self, image) -> list[OcrLine]:
        raise RuntimeError("fake OCR crash")


class EmptyOcr(OcrEngine):
    """Finds no text at all (a blank page)."""

    name = "fake-empty-ocr"

    def __init__(self, **_: object) -> None:
        pass

    def recognize(self, image) -> list[OcrLine]:
        return []


class SlowOcr(TextOcr):
    """TextOcr that takes one second per page (to hold the OCR stage busy in pool tests)."""

    name = "fake-slow-ocr"

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self.seconds = 1.0


class BatchOcr(TextOcr):
    """TextOcr with ``recognize_batch``: one call per batch that takes 1.5 s whatever its size (a
    GPU's batch), and records the sizes it saw in ``batches``."""

    name = "fake-batch-ocr"

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self.seconds = 1.5
        self.batches: list[int] = []

    def recognize_batch(self, images: list) -> list[list[OcrLine]]:
        self.batches.append(len(images))
        time.sleep(self.seconds)
        return [TextOcr.recognize(self, image) for image in images]


class ExitOcr(OcrEngine):
    """Kills its own process, as a native crash or the OOM killer would (Ray: the actor dies)."""

    name = "fake-exit-ocr"

    def __init__(self, **_: object) -> None:
        pass

    def recognize(self, image) -> list[OcrLine]:
        os._exit(13)


class HangOcr(OcrEngine):
    """Never returns (sleeps ``FAKE_OCR_HANG_SECONDS``, default an hour), as a wedged native engine
    would; for the job timeout (limits.job_timeout_seconds)."""

    name = "fake-hang-ocr"

    def __init__(self, **_: object) -> None:
        self.seconds = float(os.environ.get("FAKE_OCR_HANG_SECONDS", "3600"))

    def recognize(self, image) -> list[OcrLine]:
        time.sleep(self.seconds)
        return []


class HogOcr(OcrEngine):
    """Allocates ``FAKE_OCR_HOG_MB`` (default 16384) MB at once, as a decoder fed a bomb would;
    under limits.worker_memory_mb the allocation fails inside the worker."""

    name = "fake-hog-ocr"

    def __init__(self, **_: object) -> None:
        self.megabytes = int(os.environ.get("FAKE_OCR_HOG_MB", "16384"))

    def recognize(self, image) -> list[OcrLine]:
        hog = bytearray(self.megabytes * 1024 * 1024)
        return [OcrLine(str(len(hog)), (0.0, 0.0, 1.0, 1.0), 0.1)]


class BusyThenTextOcr(TextOcr):
    """Says it is busy on its first ``FAKE_OCR_BUSY_TIMES`` (default 2) pages, in words that never
    say "busy", then reads like TextOcr: a back-end at capacity (a GPU OCR server, say)."""

    name = "fake-busy-ocr"
    refusals = 0  # per process: the inline pool's workers share it

    def recognize(self, image) -> list[OcrLine]:
        if BusyThenTextOcr.refusals < int(os.environ.get("FAKE_OCR_BUSY_TIMES", "2")):
            BusyThenTextOcr.refusals += 1
            raise OcrBusy("all recognition slots are taken; come back later")
        return super().recognize(image)


class TemporaryTroubleOcr(OcrEngine):
    """Raises a temporary error that is not busy OCR but whose message says "busy" (a device
    that is busy resetting): the queue must count it as an attempt, not as a busy retry."""

    name = "fake-trouble-ocr"

    def __init__(self, **_: object) -> None:
        pass

    def recognize(self, image) -> list[OcrLine]:
        raise TemporaryError("device busy resetting after a fault")


class PlainOcr:
    """Has ``name`` and ``recognize`` but does not subclass ``OcrEngine``: the registry refuses it."""

    name = "fake-plain-ocr"

    def recognize(self, image) -> list[OcrLine]:
        return []
