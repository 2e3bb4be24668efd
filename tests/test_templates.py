"""Tier 1 templates at the pipeline level: invoice2data's output vocabulary mapped onto schema 2.9."""

from __future__ import annotations

from pipeline.templates import apply_template, load_template
from pipeline.text import pdf_text
from tests.docs import INVOICE_LINES, text_pdf

TEMPLATE = r"""
issuer: ACME Tools GmbH
keywords:
  - ACME Tools
fields:
  invoice_number: Invoice No:\s+(\S+)
  amount: Total EUR\s+(\d+\.\d\d)
  date: Invoice Date:\s+(\d{4}-\d{2}-\d{2})
  vat: VAT ID:\s+(DE\d{9})
  partner_name: (ACME Tools GmbH)
options:
  currency: EUR
  date_formats:
    - "%Y-%m-%d"
"""


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
