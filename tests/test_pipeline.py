"""Pipeline stages on documents the tests make: sniffing, text layer with boxes, OCR of scanned
pages with the OCR_MAX_PDF_PAGES limit, normalisation, validation and routing."""

from __future__ import annotations

import pytest

from models.registry import UnknownBackend, load_ocr
from pipeline.context import JobContext
from pipeline.normalise import data as normalise_data
from pipeline.runner import Extractor
from pipeline.sniff import JPEG, PDF, PNG, sniff
from pipeline.text import UnreadableDocument, image_text, pdf_text
from pipeline.validate import validate
from tests.conftest import fake_models
from tests.docs import INVOICE_LINES, image_pdf, jpeg, png_with_text, text_pdf
from tests.fake_ocr import TextOcr

FAKES = fake_models()


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


def test_scanned_pdf_is_ocrd_up_to_the_page_limit():
    calls = []

    def engine():
        calls.append(1)
        return TextOcr()

    doc = pdf_text(image_pdf(pages=5), engine, max_ocr_pages=3)
    assert [p.source for p in doc.pages] == ["ocr"] * 3 and doc.skipped_pages == 2
    assert doc.ocr_engine == "fake-ocr" and doc.ocr_confidence == 0.9
    result = Extractor(FAKES).run(JobContext("x", PDF, max_ocr_pages=3), image_pdf(pages=5))
    assert "2 page(s) over OCR_MAX_PDF_PAGES skipped" in result.routing_reason
    assert result.extraction_provider == "fake-ocr+rules+fake-echo"  # every document goes through the model


def test_visual_only_ignores_the_text_layer():
    result = Extractor(FAKES).run(JobContext("x", PDF, visual_only=True), text_pdf(["Total 1.00"]))
    assert "text from ocr" in result.routing_reason


def test_corrupt_inputs_are_unreadable():
    with pytest.raises(UnreadableDocument):
        pdf_text(b"%PDF-1.4 broken", TextOcr, max_ocr_pages=1)
    with pytest.raises(UnreadableDocument):
        image_text(b"\x89PNG\r\n\x1a\nbroken", TextOcr)


def test_normalised_data_has_every_key():
    data = normalise_data(
        {
            "total_amount": "1.234,50",
            "invoice_date": "05.03.2024",
            "currency": "€",
            "vendor_name": "  ACME \n GmbH ",
            "bogus": 1,
        },
        [{"description": " Hammer ", "quantity": "2", "line_total": 20}],
        "raw",
    )
    assert data["total_amount"] == 1234.5 and data["invoice_date"] == "2024-03-05"
    assert data["currency"] == "EUR" and data["vendor_name"] == "ACME GmbH"
    assert data["line_items"][0]["description"] == "Hammer" and data["line_items"][0]["quantity"] == 2.0
    assert set(data["line_items"][0]) == {
        "description",
        "line_no",
        "sku",
        "quantity",
        "unit",
        "unit_price",
        "discount",
        "tax",
        "line_total",
    }
    assert "bogus" not in data and data["raw_text"] == "raw" and data["due_date"] is None


def test_validation_rules():
    ok = {
        "subtotal": 100.0,
        "tax_amount": 19.0,
        "total_amount": 119.0,
        "invoice_date": "2024-03-05",
        "line_items": [{"line_total": 60.0}, {"line_total": 40.0}],
    }
    assert validate(ok) == []
    assert validate({**ok, "total_amount": 120.0})[0].startswith("totals do not add up")
    assert "line items sum to 60.00" in validate({**ok, "line_items": [{"line_total": 60.0}]})[0]
    assert validate({"subtotal": 1.0}) == ["total_amount is missing"]
    assert validate({**ok, "due_date": "2024-01-01"}) == ["due_date 2024-01-01 is before invoice_date 2024-03-05"]
    assert validate({**ok, "paid_amount": 100.0, "balance_amount": 9.0})[0].startswith("total_amount 119.00 - paid")
    # prices that include the tax: subtotal = total, the tax shown apart; a tax as large as the
    # total is another figure in the wrong field
    inclusive = {"subtotal": 9.81, "tax_amount": 0.59, "total_amount": 9.81, "invoice_date": "2024-03-05"}
    assert validate(inclusive) == []
    assert "tax_amount 10.40 is not less than total_amount 9.81" in validate({**inclusive, "tax_amount": 10.4})


def test_ocr_lang_mapping_and_unknown_engines():
    from models.ocr import TESSERACT_LANGS

    assert TESSERACT_LANGS == {"ch": "chi_sim+eng", "en": "eng", "th": "tha+eng"}
    with pytest.raises(ValueError, match="no Thai"):
        load_ocr("rapidocr", lang="th")
    with pytest.raises(UnknownBackend, match="choose one of"):
        load_ocr("nonesuch")
    with pytest.raises(UnknownBackend, match="cannot load"):
        load_ocr("tests.fake_ocr:Missing")


def test_hybrid_e_invoice_whose_print_disagrees_needs_review():
    """A PDF whose embedded CII says 119.00 while its print says 120.00 (tests/docs.py makes it)."""
    from tests.docs import hybrid_pdf

    result = Extractor(FAKES).run(JobContext("x", PDF), hybrid_pdf(printed_total="120.00", xml_total="119.00"))
    assert result.extraction_tier == 0 and result.data["total_amount"] == 119.0
    assert result.processing_status == "needs_review"
    assert any("total_amount" in e and "120.00" in e for e in result.validation_errors)
    agree = Extractor(FAKES).run(JobContext("x", PDF), hybrid_pdf(printed_total="119.00", xml_total="119.00"))
    assert agree.processing_status == "completed", agree.validation_errors
    visual = Extractor(FAKES).run(
        JobContext("x", PDF, visual_only=True), hybrid_pdf(printed_total="119.00", xml_total="119.00")
    )
    assert visual.extraction_tier == 2  # visual-only ignores the XML
