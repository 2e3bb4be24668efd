"""The pages of an uploaded document as the review page shows them, and the units its evidence
boxes are in (``pipeline.decision.evidence``: PDF points on a page read from its text layer, pixels of
the image the pipeline OCR'd otherwise, at ``ocr.dpi`` for a scanned PDF page).

PDF pages are rendered with pypdfium2 at ``VIEW_DPI`` under the process's pdfium lock; images
go out as uploaded (browsers apply their EXIF orientation, as the pipeline did). Blocking: call
in a thread.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from pipeline.reading.pdfium_lock import PDFIUM_LOCK
from pipeline.reading.text import is_scan, text_layer_page

VIEW_DPI = 110  # readable at a laptop's width, a few hundred KB per page


@dataclass(frozen=True)
class PageView:
    """Page ``number`` (1-based) and the width and height of its evidence boxes' coordinate space."""

    number: int
    width: float
    height: float


def pages(path: Path, media_type: str, ocr_dpi: int) -> list[PageView]:
    """Every page of the document with its evidence units; the same text-layer rule as the pipeline."""
    if media_type != "application/pdf":
        from PIL import Image, ImageOps

        with Image.open(path) as image:
            upright = ImageOps.exif_transpose(image)
            return [PageView(1, float(upright.width), float(upright.height))]
    import pypdfium2 as pdfium

    views = []
    with PDFIUM_LOCK:
        pdf = pdfium.PdfDocument(str(path))
        try:
            for index in range(len(pdf)):
                page = pdf[index]
                try:
                    width, height = page.get_size()
                    if is_scan(text_layer_page(page, index + 1)):
                        width, height = width * ocr_dpi / 72, height * ocr_dpi / 72  # OCR'd: pixels
                    views.append(PageView(index + 1, width, height))
                finally:
                    page.close()
        finally:
            pdf.close()
    return views


def page_image(path: Path, media_type: str, number: int) -> tuple[bytes, str]:
    """(bytes, content type) of page ``number``: a PNG rendered at VIEW_DPI for a PDF, the file
    itself for an image. IndexError for a page the document does not have."""
    if media_type != "application/pdf":
        if number != 1:
            raise IndexError(number)
        return path.read_bytes(), media_type
    import pypdfium2 as pdfium

    with PDFIUM_LOCK:
        pdf = pdfium.PdfDocument(str(path))
        try:
            if not 1 <= number <= len(pdf):
                raise IndexError(number)
            page = pdf[number - 1]
            try:
                image = page.render(scale=VIEW_DPI / 72).to_pil()
            finally:
                page.close()
        finally:
            pdf.close()
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue(), "image/png"
