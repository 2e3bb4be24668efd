"""The review page's page images (issue 28): a PDF page is rendered within VIEW_MAX_PIXELS, once,
and kept beside the stored file; a scanned page's evidence units follow the pipeline's capped
render. Real PDFs made by pypdfium2, no server needed."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from appliance.uploads import derived_dir
from pipeline.reading.text import pdf_text
from tests.fakes.ocr import TextOcr
from tests.support.hostile_docs import sized_pages_pdf
from webui.page_images import VIEW_MAX_PIXELS, cached_page, page_image, pages

PDF = "application/pdf"


@pytest.fixture
def stored(tmp_path):
    """A stored PDF as uploads keep them (``files/<tenant>/<file id>``, no extension)."""

    def store(*sizes: tuple[float, float]):
        path = tmp_path / "files" / "tenant" / "file-id"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(sized_pages_pdf(*sizes))
        return path

    return store


def png_size(content: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(content)) as image:
        return image.size


def test_a_large_page_is_rendered_within_the_pixel_cap(stored):
    """4000 x 2000 pt is within the upload limit; at 110 dpi it was 6112 x 3056 (18.7 million pixels)."""
    content, media_type = page_image(stored((4000, 2000)), PDF, 1)
    width, height = png_size(content)
    assert media_type == "image/png" and width * height <= VIEW_MAX_PIXELS
    assert width > 0.99 * (2 * VIEW_MAX_PIXELS) ** 0.5 and abs(width / height - 2) < 0.01  # the whole page, smaller


def test_an_a4_page_is_rendered_at_the_view_resolution(stored):
    content, _ = page_image(stored((595, 842)), PDF, 1)
    assert png_size(content) == (910, 1287)  # 110 dpi


def test_a_second_view_reads_the_png_rendered_by_the_first(stored):
    path = stored((595, 842), (842, 595))
    first, _ = page_image(path, PDF, 2)
    cached = cached_page(path, 2)
    assert cached.parent == derived_dir(path) == path.with_name("file-id.derived")
    assert cached.read_bytes() == first
    marker = io.BytesIO()
    Image.new("RGB", (3, 3)).save(marker, format="PNG")
    cached.write_bytes(marker.getvalue())  # a render would answer the page, not this
    assert page_image(path, PDF, 2) == (marker.getvalue(), "image/png")
    assert sorted(p.name for p in derived_dir(path).iterdir()) == ["page-2.png"]  # no partial file left


@pytest.mark.parametrize("number", [0, 3, -1])
def test_a_page_the_pdf_lacks_is_index_error_and_keeps_nothing(stored, number):
    path = stored((595, 842), (595, 842))
    with pytest.raises(IndexError):
        page_image(path, PDF, number)
    assert not derived_dir(path).exists()


def test_an_image_upload_has_one_page_served_as_uploaded(tmp_path):
    path = tmp_path / "scan"
    Image.new("RGB", (40, 20)).save(path, format="PNG")
    assert page_image(path, "image/png", 1) == (path.read_bytes(), "image/png")
    with pytest.raises(IndexError):
        page_image(path, "image/png", 2)
    assert not derived_dir(path).exists()


def test_a_scanned_pages_evidence_units_are_the_pixels_the_pipeline_ocrd(stored):
    """Evidence boxes of an OCR'd page are in the pixels of its render, which is now capped: the
    review page must use the same size, or the boxes land in the wrong place on large pages."""
    path = stored((1600, 1600), (595, 842))
    read = pdf_text(path.read_bytes(), TextOcr, max_ocr_pages=2, dpi=300)
    shown = pages(path, PDF, ocr_dpi=300)
    for view, page in zip(shown, read.pages, strict=True):
        assert abs(view.width - page.width) <= 1 and abs(view.height - page.height) <= 1
