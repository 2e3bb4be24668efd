"""Unit tests of the rules extractor on small synthetic pages, plus one real text-layer PDF."""
from pathlib import Path

import pytest

from pipeline.document import DocumentText, Line, Page, Word
from pipeline.parsers import detect_currency, parse_amount, parse_date
from pipeline.rules import extract_rules

SHARED = Path(__file__).resolve().parents[2] / "shared"
AWS_PDF = SHARED / "datasets" / "invoice2data" / "AmazonWebServices.pdf"


def make_line(y: float, *cells: tuple[float, str], size: float = 10.0) -> Line:
    """A line of words; each cell is (x, text) and its words are laid out left to right."""
    words = []
    for x, text in cells:
        for token in text.split():
            width = 0.55 * size * len(token)
            words.append(Word(token, (x, y, x + width, y + size)))
            x += width + 0.3 * size
    bbox = (min(w.bbox[0] for w in words), y, max(w.bbox[2] for w in words), y + size)
    return Line(" ".join(w.text for w in words), bbox, tuple(words))


def make_doc(*lines: Line) -> DocumentText:
    return DocumentText(pages=[Page(1, 595, 842, tuple(lines), "text_layer")])


def test_parsers():
    assert parse_amount("1,234.56") == 1234.56
    assert parse_amount("1.234,56") == 1234.56
    assert parse_amount("1 234,56") == 1234.56
    assert parse_amount("$4.11") == 4.11
    assert parse_amount("RM30.90") == 30.9
    assert parse_amount("49,99 €") == 49.99
    assert parse_date("August 3 , 2014") == "2014-08-03"
    assert parse_date("7. Mai 2014") == "2014-05-07"
    assert parse_date("03/20/2023") == "2023-03-20"
    assert parse_date("8-9-2022") == "2022-09-08"
    assert parse_date("2018年11月18日") == "2018-11-18"
    assert detect_currency("Total RM 30.90") == "MYR"
    assert detect_currency("Total EUR 34,73") == "EUR"
    assert detect_currency("Grand total ₹ 319") == "INR"


def test_value_right_of_label():
    doc = make_doc(
        make_line(40, (40, "ACME Widgets Ltd."), size=16),
        make_line(80, (40, "Invoice No: INV-1001")),
        make_line(95, (40, "Invoice Date: 12/03/2021")),
        make_line(400, (300, "Total"), (480, "£ 120.00")),
    )
    result = extract_rules(doc)
    assert result.fields["invoice_number"] == "INV-1001"
    assert result.fields["invoice_date"] == "2021-03-12"
    assert result.fields["total_amount"] == 120.0
    assert result.fields["currency"] == "GBP"
    assert result.fields["vendor_name"] == "ACME Widgets Ltd."
    assert result.evidence["total_amount"]["page"] == 1
    assert len(result.evidence["total_amount"]["bbox"]) == 4


def test_value_below_label():
    doc = make_doc(
        make_line(40, (40, "Northwind B.V."), size=16),
        make_line(100, (40, "Factuurnummer"), (200, "Factuurdatum"), (360, "Vervaldatum")),
        make_line(114, (40, "F2022-17"), (200, "8-9-2022"), (360, "22-9-2022")),
        make_line(300, (300, "Totaal"), (480, "€ 49,99")),
    )
    fields = extract_rules(doc).fields
    assert fields["invoice_number"] == "F2022-17"
    assert fields["invoice_date"] == "2022-09-08"
    assert fields["due_date"] == "2022-09-22"
    assert fields["total_amount"] == 49.99
    assert fields["currency"] == "EUR"


def test_european_decimal_comma_and_german_labels():
    doc = make_doc(
        make_line(40, (40, "Muster Handel GmbH"), size=14),
        make_line(80, (40, "Rechnungsnummer"), (200, "R-4711")),
        make_line(95, (40, "Rechnungsdatum"), (200, "05.06.2018")),
        make_line(300, (300, "Nettobetrag"), (480, "1.000,00 €")),
        make_line(315, (300, "MwSt. 19%"), (480, "190,00 €")),
        make_line(330, (300, "Gesamtbetrag"), (480, "1.190,00 €")),
    )
    fields = extract_rules(doc).fields
    assert fields["invoice_number"] == "R-4711"
    assert fields["invoice_date"] == "2018-06-05"
    assert fields["subtotal"] == 1000.0
    assert fields["tax_amount"] == 190.0
    assert fields["total_amount"] == 1190.0
    assert fields["vendor_name"] == "Muster Handel GmbH"


def test_arithmetic_chooses_total():
    # "Subtotaal" prints the gross amount; the arithmetic picks the net one as subtotal.
    doc = make_doc(
        make_line(40, (40, "Shop B.V."), size=14),
        make_line(300, (60, "Exclusief BTW"), (200, "€ 593,36"), (300, "Subtotaal"), (480, "€ 717,97")),
        make_line(315, (60, "BTW 21%"), (200, "€ 124,61")),
        make_line(330, (300, "Totaal"), (480, "€ 717,97")),
    )
    fields = extract_rules(doc).fields
    assert fields["total_amount"] == 717.97
    assert fields["subtotal"] == 593.36
    assert fields["tax_amount"] == 124.61


def test_chinese_labels():
    doc = make_doc(
        make_line(40, (40, "上海某某有限公司"), size=16),
        make_line(80, (40, "发票号码: 12345678")),
        make_line(95, (40, "开票日期: 2023年05月17日")),
        make_line(300, (40, "合计"), (400, "¥ 88.50")),
    )
    fields = extract_rules(doc).fields
    assert fields["invoice_number"] == "12345678"
    assert fields["invoice_date"] == "2023-05-17"
    assert fields["total_amount"] == 88.5
    assert fields["currency"] == "CNY"


def test_line_item_table():
    doc = make_doc(
        make_line(40, (40, "Tools Inc."), size=16),
        make_line(200, (40, "Description"), (300, "Qty"), (380, "Unit Price"), (480, "Amount")),
        make_line(215, (40, "Hammer"), (300, "2"), (380, "10.00"), (480, "20.00")),
        make_line(230, (40, "Screwdriver set"), (300, "1"), (380, "15.50"), (480, "15.50")),
        make_line(260, (380, "Total"), (480, "35.50")),
    )
    result = extract_rules(doc)
    assert result.fields["total_amount"] == 35.5
    items = result.line_items
    assert [i["description"] for i in items] == ["Hammer", "Screwdriver set"]
    assert items[0]["quantity"] == 2 and items[0]["unit_price"] == 10.0 and items[0]["line_total"] == 20.0
    assert items[1]["line_total"] == 15.5
    assert set(items[0]) == {"description", "line_no", "sku", "quantity", "unit", "unit_price", "discount",
                             "tax", "line_total"}


def test_customer_after_bill_to():
    doc = make_doc(
        make_line(40, (40, "Seller Corp."), size=16),
        make_line(120, (40, "Bill To:")),
        make_line(134, (40, "Jane Buyer")),
        make_line(148, (40, "1 Main Street")),
    )
    assert extract_rules(doc).fields["customer_name"] == "Jane Buyer"


@pytest.mark.skipif(not AWS_PDF.exists(), reason="shared dev datasets (../shared/datasets) are not checked out here")
def test_aws_invoice_pdf():
    from pipeline.text import pdf_text

    def no_ocr():
        raise AssertionError("the AWS invoice has a text layer and must not need OCR")

    doc = pdf_text(AWS_PDF.read_bytes(), no_ocr, max_ocr_pages=3)
    fields = extract_rules(doc).fields
    assert fields["total_amount"] == 4.11
    assert fields["invoice_number"] == "42183017"
    assert fields["invoice_date"] == "2014-08-03"
