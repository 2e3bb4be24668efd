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
    """What every OCR back-end implements. ``name`` is reported as the OCR provider."""

    name: str

    def recognize(self, image) -> list[OcrLine]:
        """OCR one page. ``image`` is a PIL image (RGB). Returns lines in reading order."""
        ...
