"""The OCR engine interface: one page image in, text lines with boxes and confidences out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# OCR_LANG (spec section 8) -> what each engine calls the languages.
TESSERACT_LANGS = {"ch": "chi_sim+eng", "en": "eng", "th": "tha+eng"}


@dataclass(frozen=True)
class OcrLine:
    """One recognised line: text (NFKC), box ``(x0, y0, x1, y1)`` in image pixels, confidence in [0, 1]."""

    text: str
    bbox: tuple[float, float, float, float]
    confidence: float


class OcrEngine(Protocol):
    """What every OCR back-end implements, and what it may also do (STYLE.md 16, as OCRmyPDF's
    ``pluginspec.py`` declares its hooks). A back-end subclasses this class (``models.registry``
    refuses one that does not), implements ``recognize`` and ``name`` (reported as the OCR
    provider), and overrides the optional capabilities whose defaults do not suit it."""

    name: str

    def recognize(self, image) -> list[OcrLine]:
        """OCR one page. ``image`` is a PIL image (RGB). Returns lines in reading order."""
        ...

    def recognize_batch(self, images: list) -> list[list[OcrLine]]:
        """Optional: OCR many pages in one call (an engine that batches on its device overrides
        it). Default: ``recognize`` on each page, in order."""
        return [self.recognize(image) for image in images]

    def recognize_by(self, image) -> tuple[str, list[OcrLine]]:
        """Optional: (the name of the engine that read the page, its lines), for an engine that
        hands pages to others (``models.script_router.ScriptRouter``); a document reports that
        name as its OCR engine. Default: ``(name, recognize(image))``."""
        return self.name, self.recognize(image)

    def close(self) -> None:
        """Optional: release what the engine started (a child process, a server). Default: nothing."""
