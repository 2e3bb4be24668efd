"""Tier 1 templates at the pipeline level: invoice2data's output vocabulary mapped onto schema 2.9."""

from __future__ import annotations

from pipeline.reading.text import pdf_text
from pipeline.templates.invoice2data import apply_template, load_template
from tests.appliance.test_vendors import ACME_TEMPLATE
from tests.support.docs import INVOICE_LINES, text_pdf

# The ACME template of test_vendors, with the issuer's VAT id and legal name.
TEMPLATE = ACME_TEMPLATE.replace(
    "fields:\n", "fields:\n  vat: VAT ID:\\s+(DE\\d{9})\n  partner_name: (ACME Tools GmbH)\n"
)


def _no_ocr():
    raise AssertionError("a text-layer PDF needs no OCR")


def test_template_vat_is_the_vendor_tax_id():
    """invoice2data's ``vat`` field is the issuer's VAT id (its ``vat`` template key)."""
    doc = pdf_text(text_pdf([*INVOICE_LINES, "VAT ID: DE123456789"]), _no_ocr, max_ocr_pages=0)
    result = apply_template(load_template(TEMPLATE, "acme"), doc)
    assert result is not None
    assert result.fields["vendor_tax_id"] == "DE123456789"
    assert result.fields["vendor_name"] == "ACME Tools GmbH"
    assert result.fields["invoice_number"] == "INV-2024-001"
    assert result.fields["invoice_date"] == "2024-03-05"
