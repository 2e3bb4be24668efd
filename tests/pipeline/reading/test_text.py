"""Reading a document (``pipeline.reading``): the type by magic bytes, the PDF text layer with
word and line boxes, and unreadable inputs."""

from __future__ import annotations

import pytest

from pipeline.reading.sniff import JPEG, PDF, PNG, sniff
from pipeline.reading.text import UnreadableDocument, image_text, pdf_text
from tests.fakes.ocr import TextOcr
from tests.support.docs import INVOICE_LINES, jpeg, png_with_text, text_pdf


def test_sniff_by_magic_bytes():
    assert sniff(text_pdf(["x"])) == PDF
    assert sniff(b"junk before the header %PDF-1.7") == PDF
    assert sniff(png_with_text("x")) == PNG
    assert sniff(jpeg()) == JPEG
    assert sniff(b"GIF89a...") is None and sniff(b"") is None
    assert sniff(b"PK\x03\x04 docx") is None


def test_text_layer_keeps_word_and_line_boxes():
    doc = pdf_text(text_pdf(INVOICE_LINES), lambda: pytest.fail("no OCR for a text layer"), max_ocr_pages=3)
    page = doc.pages[0]
    assert page.source == "text_layer" and (page.width, page.height) == (595, 842)
    assert [line.text for line in page.lines] == INVOICE_LINES
    total = page.lines[-1]
    assert [w.text for w in total.words] == ["Total", "EUR", "119.00"]
    x0, y0, x1, y1 = total.bbox
    assert 40 < x0 < x1 < 300 and 0 < y0 < y1 < 842
    assert page.lines[0].bbox[1] < total.bbox[1]  # top-left origin: first line is higher
    assert doc.ocr_confidence is None


def test_corrupt_inputs_are_unreadable():
    with pytest.raises(UnreadableDocument):
        pdf_text(b"%PDF-1.4 broken", TextOcr, max_ocr_pages=1)
    with pytest.raises(UnreadableDocument):
        image_text(b"\x89PNG\r\n\x1a\nbroken", TextOcr)
