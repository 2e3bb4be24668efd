"""The text of a document as the pipeline sees it: pages of lines of words, each with a box.

Boxes are ``(x0, y0, x1, y1)`` in pixels of the page as rendered or OCR'd (for a PDF text
layer: PDF points, 1/72 inch), origin top-left, y growing downwards. Later stages use them for
layout (columns of a table, the value right of a label) and for evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class Word:
    """One word (or OCR token) with its box and the engine's confidence in [0, 1] (None: exact)."""

    text: str
    bbox: BBox
    confidence: float | None = None


@dataclass(frozen=True)
class Line:
    """One visual line: its text (words joined by single spaces), box and words."""

    text: str
    bbox: BBox
    words: tuple[Word, ...] = ()
    confidence: float | None = None


@dataclass(frozen=True)
class Page:
    """One page: 1-based ``number``, size in the units of its boxes, lines top to bottom.

    ``source`` is ``"text_layer"`` (exact text from the PDF) or ``"ocr"``.
    """

    number: int
    width: float
    height: float
    lines: tuple[Line, ...]
    source: str

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


@dataclass
class DocumentText:
    """All pages of one document, plus what the text stage noted (skipped pages, engine)."""

    pages: list[Page] = field(default_factory=list)
    ocr_engine: str | None = None
    skipped_pages: int = 0

    @classmethod
    def of_text(cls, text: str, source: str = "text_layer") -> DocumentText:
        """A document of ``text`` read before (pages apart by form feeds, lines by newlines), with
        no boxes: its ``pipeline.templates.invoice2data.layout_text`` is ``text`` as it is, so a
        template runs on a kept rendering exactly as it ran on the document."""
        pages = [
            Page(number, 0.0, 0.0, tuple(Line(line, (0.0, 0.0, 0.0, 0.0)) for line in page.split("\n")), source)
            for number, page in enumerate(text.split("\f"), start=1)
        ]
        return cls(pages)

    @property
    def text(self) -> str:
        """The whole text, pages separated by a form feed."""
        return "\n\f".join(page.text for page in self.pages)

    @property
    def lines(self) -> list[tuple[Page, Line]]:
        return [(page, line) for page in self.pages for line in page.lines]

    @property
    def ocr_confidence(self) -> float | None:
        """Mean OCR confidence over OCR'd lines, in [0, 1]; None when nothing was OCR'd."""
        values = [
            line.confidence
            for page in self.pages
            if page.source == "ocr"
            for line in page.lines
            if line.confidence is not None
        ]
        return round(sum(values) / len(values), 4) if values else None
