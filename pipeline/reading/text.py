"""Text of a document: the PDF text layer when a page has one, OCR otherwise.

Pages are rendered with pypdfium2 (at ``dpi``, within ``OCR_MAX_PIXELS``: ``render_scale``) only
when their text layer holds fewer than ``min_chars`` characters: a scan, or a page whose text is
drawn as vector art. At most ``max_ocr_pages`` pages are OCR'd (OCR_MAX_PDF_PAGES, spec section
8); the rest are skipped and counted. Images (JPEG, PNG) are always OCR'd.
"""

from __future__ import annotations

import io
import math
import statistics
import unicodedata

from pipeline.document import DocumentText, Line, Page, Word
from pipeline.reading.pdfium_lock import PDFIUM_LOCK

MIN_TEXT_LAYER_CHARS = 20  # measurements.md: fewer characters than this is a scan
# Pixels of a page rendered for OCR, at most: A4 and Letter at 600 dpi (ocr.dpi's upper bound; A4
# is 4961 x 7016 = 34.8 million) fit whole, and the bitmap stays near 110 MB (3 bytes a pixel).
# Larger pages are rendered at a lower resolution instead of taking the worker's memory (issue 28:
# a 200 x 200 inch page at 200 dpi is 1.6 billion pixels).
OCR_MAX_PIXELS = 36_000_000
# A segment this many median heights tall, and twice as tall as wide, stands on its side. A FeRD
# page's margin text spans 14 to 20 of them; a fapiao's side label (购买方, 销售方) or a stamp spans
# 3 or 4, and a fapiao's label belongs to the rows of its block (read as one line, the party's
# tax id beside it: set apart at 3, the rules lost a seller's tax id of the training set).
STANDING_HEIGHTS = 6.0


class UnreadableDocument(ValueError):
    """The file cannot be opened as the type its magic bytes claim (corrupt, encrypted)."""


def group_lines(segments: list[tuple[str, tuple[float, float, float, float], float | None]]) -> list[Line]:
    """Group word or segment boxes into visual lines, top to bottom and left to right.

    ``segments`` are ``(text, (x0, y0, x1, y1), confidence)`` with y growing downwards. A segment
    joins a line when its vertical extent overlaps the line's by more than half the smaller height,
    the line's extent being the median top and bottom of its segments: the union would grow with
    each segment and chain the lines of a block into one (a four-column header read as one line,
    a title printed large beside two lines of an address). A segment within the union joins too:
    punctuation the text layer sets apart ("447 , 88") sits low beside the median.

    A standing segment (``standing``: text printed up the margin, a stamp, a label set on its side)
    is a line of its own: it spans the rows of a whole block, and each of them would join it (a
    FeRD page's "Copyright FORUM ELEKTRONISCHE RECHNUNG" in the margin read four rows of totals
    and their labels as one line: "Rechnungssumme Brutto ... Netto ... Steuerbasisbetrag ...
    198,00 235,62 198,00 37,62").
    """
    rows: list[list] = []
    flags = standing(segments)
    upright = [seg for seg, on_side in zip(segments, flags, strict=True) if not on_side]
    for seg in sorted(upright, key=lambda s: ((s[1][1] + s[1][3]) / 2, s[1][0])):
        _, (x0, y0, x1, y1), _ = seg
        for row in rows:
            ry0 = statistics.median(s[1][1] for s in row)
            ry1 = statistics.median(s[1][3] for s in row)
            overlap = min(y1, ry1) - max(y0, ry0)
            inside = y0 >= min(s[1][1] for s in row) and y1 <= max(s[1][3] for s in row)  # a comma, a dot
            if overlap > 0.5 * min(y1 - y0, ry1 - ry0) or inside:
                row.append(seg)
                break
        else:
            rows.append([seg])
    rows += [[seg] for seg, on_side in zip(segments, flags, strict=True) if on_side]
    lines = []
    for row in rows:
        row.sort(key=lambda s: s[1][0])
        words = tuple(Word(t, b, c) for t, b, c in row)
        confs = [c for _, _, c in row if c is not None]
        bbox = (
            min(s[1][0] for s in row),
            min(s[1][1] for s in row),
            max(s[1][2] for s in row),
            max(s[1][3] for s in row),
        )
        lines.append(Line(" ".join(w.text for w in words), bbox, words, sum(confs) / len(confs) if confs else None))
    lines.sort(key=lambda line: (line.bbox[1], line.bbox[0]))
    return lines


def standing(segments: list[tuple[str, tuple[float, float, float, float], float | None]]) -> list[bool]:
    """Per segment of ``segments``, whether it stands on its side: two characters or more, at
    least twice as tall as wide and more than ``STANDING_HEIGHTS`` times the median segment
    height. A character alone is no line on its side: a "1" or an "l" is taller than wide, and a
    text layer's ":" is boxed higher than its page's many small glyphs."""
    if not segments:
        return []
    median = statistics.median(s[1][3] - s[1][1] for s in segments)
    return [
        len("".join(text.split())) >= 2 and (y1 - y0) > STANDING_HEIGHTS * median and (y1 - y0) >= 2 * (x1 - x0)
        for text, (x0, y0, x1, y1), _ in segments
    ]


def text_layer_words(textpage, height: float) -> list[tuple[str, tuple[float, float, float, float], None]]:
    """Words of a pdfium text page from its character stream, boxes in points with a top-left origin.

    A word ends at a whitespace character (pdfium generates those between words) or where the
    gap to the next character is wider than half the character height, or where the line changes;
    a combining mark never ends one (Thai vowels drawn above their consonant read "รวมทั้งสิ้น",
    not "รวมท ั้ งส ิ้ น").
    """
    words: list = []
    chars: list[tuple[str, tuple[float, float, float, float]]] = []

    def flush() -> None:
        if chars:
            text = unicodedata.normalize("NFKC", "".join(c for c, _ in chars)).strip()
            if text:
                box = (
                    min(b[0] for _, b in chars),
                    min(b[1] for _, b in chars),
                    max(b[2] for _, b in chars),
                    max(b[3] for _, b in chars),
                )
                words.append((text, box, None))
            chars.clear()

    for index in range(textpage.count_chars()):
        char = textpage.get_text_range(index, 1)
        if not char or char.isspace() or char == "\ufffe":
            flush()
            continue
        if chars and unicodedata.category(char) == "Mn":
            # a combining mark (Thai vowels and tone marks above or below their consonant, a
            # decomposed accent) belongs to the letter before it wherever its box is drawn
            chars.append((char, chars[-1][1]))
            continue
        left, bottom, right, top = textpage.get_charbox(index)
        box = (left, height - top, right, height - bottom)
        if chars:
            prev = chars[-1][1]
            size = max(prev[3] - prev[1], box[3] - box[1], 1.0)
            centre_shift = abs((prev[1] + prev[3]) / 2 - (box[1] + box[3]) / 2)
            if box[0] - prev[2] > 0.5 * size or box[0] < prev[0] - 0.5 * size or centre_shift > 0.6 * size:
                flush()
        chars.append((char, box))
    flush()
    return words


def text_layer_page(page, number: int) -> Page:
    """Read one pypdfium2 page's text layer into a Page of lines (boxes in PDF points, top-left origin)."""
    width, height = page.get_size()
    textpage = page.get_textpage()
    try:
        words = text_layer_words(textpage, height)
    finally:
        textpage.close()
    return Page(number, width, height, tuple(group_lines(words)), "text_layer")


def is_scan(page: Page | None) -> bool:
    """Whether a page's text layer (``text_layer_page``) is too thin to read from, so that the
    page is OCR'd instead: fewer than MIN_TEXT_LAYER_CHARS characters, or none at all."""
    return page is None or sum(len(line.text) for line in page.lines) < MIN_TEXT_LAYER_CHARS


def ocr_page(image, number: int, engine) -> tuple[Page, str]:
    """OCR one PIL image with ``engine`` (models.ocr.OcrEngine) into a Page (pixel boxes), and
    the name of the engine that read it (``OcrEngine.recognize_by``: a router of engines names
    the one whose reading it returned; an engine that does not subclass OcrEngine, itself)."""
    by = getattr(engine, "recognize_by", None)
    name, lines = by(image) if by else (engine.name, engine.recognize(image))
    segments = [(line.text, line.bbox, line.confidence) for line in lines]
    return Page(number, float(image.width), float(image.height), tuple(group_lines(segments)), "ocr"), name


def _joined(names: list[str]) -> str | None:
    """The engines that read a document's pages, each once, in page order ("ppocr+tesseract")."""
    return "+".join(dict.fromkeys(names)) or None


def render_scale(width: float, height: float, dpi: float, max_pixels: int) -> float:
    """The scale (pixels per PDF point) to render a page of ``width`` x ``height`` points at:
    ``dpi / 72``, or less where that would give more than ``max_pixels`` pixels. pypdfium2's
    ``PdfPage.render`` makes a bitmap of ceil(width x scale) by ceil(height x scale) pixels, so
    the bound counts one pixel more each way: it solves (w s + 1)(h s + 1) = max_pixels for s."""
    scale = dpi / 72
    if width <= 0 or height <= 0:
        return scale  # nothing to render: pypdfium2 refuses the page, as it did before
    area, edges = width * height, width + height
    capped = (math.sqrt(edges * edges + 4 * area * (max_pixels - 1)) - edges) / (2 * area)
    return min(scale, capped)


def pdf_text(
    data: bytes, engine_factory, *, max_ocr_pages: int, dpi: int = 200, use_text_layer: bool = True
) -> DocumentText:
    """Text of a PDF given as bytes. ``engine_factory()`` returns the OCR engine, called only if needed.

    Raises UnreadableDocument for a corrupt or password-protected PDF.
    """
    import pypdfium2 as pdfium

    with PDFIUM_LOCK:  # pdfium is not thread-safe (pipeline.reading.pdfium_lock); OCR runs outside the lock
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            raise UnreadableDocument(f"the PDF cannot be read: {exc}") from exc
        count = len(pdf)
    doc = DocumentText()
    ocr_done = 0
    readers: list[str] = []
    try:
        for index in range(count):
            image = None
            with PDFIUM_LOCK:
                page = pdf[index]
                try:
                    result = text_layer_page(page, index + 1) if use_text_layer else None
                    scanned = is_scan(result)
                    if scanned and ocr_done < max_ocr_pages:
                        scale = render_scale(*page.get_size(), dpi, OCR_MAX_PIXELS)
                        image = page.render(scale=scale).to_pil()
                finally:
                    page.close()
            if scanned and image is None:
                doc.skipped_pages += 1
                continue
            if image is not None:
                result, reader = ocr_page(image, index + 1, engine_factory())
                readers.append(reader)
                doc.ocr_engine = _joined(readers)
                ocr_done += 1
            doc.pages.append(result)
    finally:
        with PDFIUM_LOCK:
            pdf.close()
    return doc


def image_text(data: bytes, engine_factory) -> DocumentText:
    """OCR a JPEG or PNG given as bytes. Raises UnreadableDocument when it does not decode."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data))
        image = ImageOps.exif_transpose(image).convert("RGB")
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise UnreadableDocument(f"the image cannot be decoded: {exc}") from exc
    page, reader = ocr_page(image, 1, engine_factory())
    return DocumentText(pages=[page], ocr_engine=reader)
