"""Per-page choice of the OCR engine by the script a page holds.

With ``OCR_LANG = "th"`` an installation reads Thai documents beside Latin and Chinese ones, and
no engine is best at all of them: ppocr (the default) reads Latin and Chinese scripts but has
no Thai model, Tesseract reads Thai (``tha+eng``) but Latin receipts far worse
(``bench/results/ocr.md``). ``ScriptRouter`` asks Tesseract's orientation and script detection
(OSD, Debian's ``tesseract-ocr-osd``) which script a page is in and hands the page to the engine
chosen for that script, every other page to the configured engine. The OSD costs about 0.2 s a
page on 2 cores, so only installations with ``OCR_LANG = "th"`` pay it.

Imports only ``models.ocr`` and, lazily, tesserocr and PIL.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from models.ocr import OcrEngine, OcrLine

# OSD's script confidence at or above which a page is taken to be in that script. On the dev
# set's Latin receipts and rendered invoices OSD names Latin at 0.3 to 5.6 and, on a few
# receipts, another script (Cyrillic, Arabic) at most at 2.0; a printed Thai page scores 21.
MIN_SCRIPT_CONFIDENCE = 8.0
# OSD looks at the page at most this many pixels on its long side (photos of 35 Mpx take ~1 s).
OSD_MAX_SIDE = 2000


class ScriptRouter(OcrEngine):
    """Reads each page with ``by_script[<script OSD finds>]`` (OSD script names: "Thai",
    "Han", "Latin", ...), else with ``primary``. ``tessdata``: the folder holding
    ``osd.traineddata``. ``name`` joins the engines' names ("ppocr+tesseract")."""

    def __init__(self, primary: OcrEngine, by_script: Mapping[str, OcrEngine], tessdata: str) -> None:
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
        import tesserocr  # heavy: libtesseract

        self.primary = primary
        self.by_script = dict(by_script)
        self.name = "+".join([primary.name, *(engine.name for engine in self.by_script.values())])
        self._osd = tesserocr.PyTessBaseAPI(path=tessdata, lang="osd", psm=tesserocr.PSM.OSD_ONLY)

    def script(self, image) -> str | None:
        """The script OSD finds on ``image`` (a PIL image) with at least
        ``MIN_SCRIPT_CONFIDENCE``, or None (too little text, or no clear script)."""
        from PIL import ImageOps

        grey = ImageOps.grayscale(image)
        if max(grey.size) > OSD_MAX_SIDE:
            grey.thumbnail((OSD_MAX_SIDE, OSD_MAX_SIDE))
        self._osd.SetImage(grey)
        found = self._osd.DetectOrientationScript()
        if not found or found["script_conf"] < MIN_SCRIPT_CONFIDENCE:
            return None
        return found["script_name"]

    def engine_for(self, image) -> OcrEngine:
        """The engine that reads ``image``: the one of its script, else the primary one."""
        return self.by_script.get(self.script(image) or "", self.primary)

    def recognize(self, image) -> list[OcrLine]:
        return self.engine_for(image).recognize(image)

    def close(self) -> None:
        for engine in (self.primary, *self.by_script.values()):
            getattr(engine, "close", lambda: None)()
        self._osd.End()
