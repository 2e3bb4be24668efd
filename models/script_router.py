"""Per-page choice of the OCR engine by the script a page holds.

No engine is best at every script: ppocr (the default) reads Latin and Chinese but has no Thai
model, and reads a Thai page as Latin garbage ("uann laun 0021367"); Tesseract reads Thai
(``tha+eng``) but Latin receipts far worse (``bench/results/ocr.md``). ``ScriptRouter`` reads
every page with the configured engine first and takes a second look only at a page that engine
was unsure of (mean character confidence under ``SECOND_LOOK_BELOW``): the script engines read
it too, and the reading of the one whose letters are mostly its own script wins.

Why not ask Tesseract's script detection (OSD) first, as this module once did: on the
synthetic Thai invoices and receipts of 600 x 800 pixels OSD named Latin (confidence 1.3 to
2.0), Fraktur or nothing on four pages of six, and Greek or Cyrillic on English ones. The first
engine's own confidence separates them: on the scorer's training pages ppocr reads Thai at 0.87
to 0.94 and every synthetic page in another script at 0.97 or more; on the real receipts,
whose floor is 0.92, Tesseract's reading of a Latin page holds 2 % Thai letters, of a Thai page
78 to 97 %.

Which installations route (OCR_LANG "th", or "ch" with Tesseract's Thai data installed) is
``pipeline.runner.thai_routed``'s choice. Imports only ``models.ocr``.
"""

from __future__ import annotations

from collections.abc import Mapping

from models.ocr import OcrEngine, OcrLine

# The first engine's mean character confidence under which a page gets a second look. ppocr
# reads the scorer's Thai training pages at 0.87 to 0.94 and its other synthetic pages at 0.97
# or more; real receipts that fall under it (about one in ten) pay a Tesseract reading (0.3 to
# 1.0 s on 2 cores) that the share below then drops.
SECOND_LOOK_BELOW = 0.95
# The share of a second reading's letters that must be of the engine's script for it to win.
MIN_SCRIPT_SHARE = 0.5
# Unicode blocks of the scripts a second engine may be chosen for (inclusive code points).
SCRIPT_BLOCKS = {"Thai": (0x0E00, 0x0E7F)}


def mean_confidence(lines: list[OcrLine]) -> float:
    """Mean confidence of ``lines``, weighted by their characters (a long line counts more than
    a stray mark); 1.0 for a page without text (nothing to look at again)."""
    chars = sum(len(line.text) for line in lines)
    if not chars:
        return 1.0
    return sum(line.confidence * len(line.text) for line in lines) / chars


def text_script_share(text: str, script: str) -> float:
    """The share of the letters of ``text`` that lie in ``script``'s Unicode block
    (``SCRIPT_BLOCKS``); 0.0 without letters."""
    low, high = SCRIPT_BLOCKS[script]
    letters = [char for char in text if char.isalpha()]
    if not letters:
        return 0.0
    return sum(low <= ord(char) <= high for char in letters) / len(letters)


def script_share(lines: list[OcrLine], script: str) -> float:
    """``text_script_share`` of the text of ``lines``."""
    return text_script_share(" ".join(line.text for line in lines), script)


class ScriptRouter(OcrEngine):
    """Reads each page with ``primary``; a page it reads under ``SECOND_LOOK_BELOW`` is read
    again by each engine of ``by_script`` (script name, a key of ``SCRIPT_BLOCKS`` -> engine),
    and the first reading whose letters are at least ``MIN_SCRIPT_SHARE`` of that script is
    returned instead. ``name`` joins the engines' names ("ppocr+tesseract"); a document names
    the ones that read its pages (``recognize_by``)."""

    def __init__(self, primary: OcrEngine, by_script: Mapping[str, OcrEngine]) -> None:
        unknown = set(by_script) - set(SCRIPT_BLOCKS)
        if unknown:
            raise ValueError(f"no Unicode block known for script(s) {sorted(unknown)}")
        self.primary = primary
        self.by_script = dict(by_script)
        self.name = "+".join([primary.name, *(engine.name for engine in self.by_script.values())])

    def second_look(self, image, first: list[OcrLine]) -> tuple[str, list[OcrLine]] | None:
        """(script, reading) of the script engine that reads ``image`` as its script, or None:
        ``first`` (the primary's reading) was sure enough, or no engine's reading is mostly its
        script."""
        if mean_confidence(first) >= SECOND_LOOK_BELOW:
            return None
        for script, engine in self.by_script.items():
            lines = engine.recognize(image)
            if script_share(lines, script) >= MIN_SCRIPT_SHARE:
                return script, lines
        return None

    def engine_for(self, image) -> OcrEngine:
        """The engine whose reading ``recognize`` returns for ``image``."""
        name = self.recognize_by(image)[0]
        return next((e for e in self.by_script.values() if e.name == name), self.primary)

    def recognize(self, image) -> list[OcrLine]:
        return self.recognize_by(image)[1]

    def recognize_by(self, image) -> tuple[str, list[OcrLine]]:
        """(the name of the engine whose reading is returned, that reading): what a document
        reports as its OCR engine (``pipeline.reading.text.ocr_page``)."""
        first = self.primary.recognize(image)
        found = self.second_look(image, first)
        return (self.by_script[found[0]].name, found[1]) if found else (self.primary.name, first)

    def close(self) -> None:
        for engine in (self.primary, *self.by_script.values()):
            getattr(engine, "close", lambda: None)()
