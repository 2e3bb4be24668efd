"""The pages of an uploaded document as the review page shows them, and the units its evidence
boxes are in (``pipeline.decision.evidence``: PDF points on a page read from its text layer, pixels of
the image the pipeline OCR'd otherwise, at ``ocr.dpi`` within ``OCR_MAX_PIXELS`` for a scanned
PDF page: ``pipeline.reading.text.render_scale``).

PDF pages are rendered with pypdfium2 at ``VIEW_DPI``, within ``VIEW_MAX_PIXELS``, under the
process's pdfium lock, once: the PNG is kept in the file's folder of derived files
(``appliance.uploads.derived_dir``) and later views read it from there (issue 28: each view
rendered again, in the API's process, under the lock that uploads also wait for). Images go out
as uploaded (browsers apply their EXIF orientation, as the pipeline did). Blocking: call in a
thread.
"""

from __future__ import annotations

import io
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from appliance.uploads import derived_dir, remove_stored
from pipeline.reading.pdfium_lock import PDFIUM_LOCK
from pipeline.reading.text import OCR_MAX_PIXELS, is_scan, render_scale, text_layer_page

VIEW_DPI = 110  # readable at a laptop's width, a few hundred KB per page
# Pixels of a page image, at most: A3 at VIEW_DPI (2.3 million) is shown whole; a larger page is
# shown at a lower resolution, so that one view costs at most ~12 MB of bitmap in the API process.
VIEW_MAX_PIXELS = 4_000_000


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
                    if is_scan(text_layer_page(page, index + 1)):  # OCR'd: pixels, as the pipeline rendered it
                        scale = render_scale(width, height, ocr_dpi, OCR_MAX_PIXELS)
                        width, height = width * scale, height * scale
                    views.append(PageView(index + 1, width, height))
                finally:
                    page.close()
        finally:
            pdf.close()
    return views


def page_image(path: Path, media_type: str, number: int) -> tuple[bytes, str]:
    """(bytes, content type) of page ``number``: for a PDF, a PNG rendered at VIEW_DPI within
    VIEW_MAX_PIXELS on the first view and read from ``cached_page(path, number)`` on later ones;
    for an image, the file itself. IndexError for a page the document does not have."""
    if media_type != "application/pdf":
        if number != 1:
            raise IndexError(number)
        return path.read_bytes(), media_type
    cached = cached_page(path, number)
    try:
        return cached.read_bytes(), "image/png"
    except FileNotFoundError:
        pass
    content = _render_png(path, number)
    _write_whole(cached, content)
    if not path.exists():  # deleted, or removed by retention, while this page rendered: keep nothing
        remove_stored(path)
    return content, "image/png"


def cached_page(path: Path, number: int) -> Path:
    """Where the PNG of page ``number`` of the stored PDF ``path`` is kept once rendered."""
    return derived_dir(path) / f"page-{number}.png"


def _render_png(path: Path, number: int) -> bytes:
    import pypdfium2 as pdfium

    with PDFIUM_LOCK:
        pdf = pdfium.PdfDocument(str(path))
        try:
            if not 1 <= number <= len(pdf):
                raise IndexError(number)
            page = pdf[number - 1]
            try:
                image = page.render(scale=render_scale(*page.get_size(), VIEW_DPI, VIEW_MAX_PIXELS)).to_pil()
            finally:
                page.close()
        finally:
            pdf.close()
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)  # outside the lock: uploads need not wait for zlib
    return out.getvalue()


def _write_whole(target: Path, content: bytes) -> None:
    # written beside, then renamed: a view at the same time reads the whole PNG or none
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex}")
    try:
        partial.write_bytes(content)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
