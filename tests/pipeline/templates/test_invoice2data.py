"""Tier 1 templates at the pipeline level: invoice2data's output vocabulary mapped onto schema 2.9."""

from __future__ import annotations

import pytest

from pipeline.reading.text import pdf_text
from pipeline.templates.invoice2data import TemplateError, apply_template, load_template
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


def test_a_regex_that_does_not_compile_is_refused_at_load_naming_its_line():
    """invoice2data compiles a regex only when it runs it, and ``re.error`` is no ValueError: the
    check at load keeps a typo from surfacing on a document (where it crashed the step)."""
    broken = ACME_TEMPLATE.replace(r"Total EUR\s+(\d+\.\d\d)", r"Total EUR\s+(\d+\.\d\d")
    with pytest.raises(TemplateError) as refused:
        load_template(broken, "acme")
    message = str(refused.value)
    assert r'line 7, fields.amount: the regex "Total EUR\s+(\d+\.\d\d" does not compile' in message
    assert "missing )" in message
    lines = ACME_TEMPLATE + "lines:\n  start: Description\n  end: Subtotal\n  line: (?P<name>[A-Z]\n"
    with pytest.raises(TemplateError, match="lines.line"):
        load_template(lines, "acme")


def test_why_a_template_gave_nothing():
    doc = pdf_text(text_pdf(INVOICE_LINES), _no_ocr, max_ocr_pages=0)
    why: list[str] = []
    elsewhere = load_template(ACME_TEMPLATE.replace("  - ACME Tools", "  - Globex"), "globex")
    assert apply_template(elsewhere, doc, why=why) is None
    no_date = load_template(ACME_TEMPLATE.replace("Invoice Date:", "Datum:"), "acme")
    assert apply_template(no_date, doc, forced=True, why=why) is None
    assert why[0] == "template ACME Tools GmbH: its keywords are not all in the text"
    assert "date" in why[1] and "required" in why[1]


def test_a_yaml_error_says_where_and_what_for_people():
    broken = ACME_TEMPLATE.replace("  amount:", "   amount:")  # one space too many
    with pytest.raises(TemplateError) as refused:
        load_template(broken, "acme")
    assert str(refused.value).startswith("template acme: not valid YAML at line 7, column 10: mapping values are not")
    assert str(refused.value).endswith(r'(in "amount: Total EUR\s+(\d+\.\d\d)")')
