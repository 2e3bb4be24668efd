"""EN 16931 e-invoices of an invoice's data (issue 28, "Export"): the business terms, the CII,
UBL and Factur-X documents made from them, valid against the official XSD and the official
EN 16931 Schematron, read back by our tier 0 as the same data; and every gap refused with the
business terms (BT-n) it lacks, nothing invented."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from appliance.errors import DocumentInvalid, NotExportable
from appliance.export.einvoice import check_xsd, facturx_pdf, render_xml
from appliance.export.en16931 import Parties, business_terms, code_lists
from pipeline.einvoice.reader import parse_xml, read_einvoice
from tests.support.docs import INVOICE_LINES, image_pdf, png_with_text, text_pdf
from tests.support.export import TENANT_VAT, complete_data, differences, schematron_errors

PAYABLE = Parties("payable", TENANT_VAT)


def terms_of(data, parties=PAYABLE):
    return business_terms("invoice-1", data, parties, code_lists())


def problems_of(data, parties=PAYABLE) -> str:
    with pytest.raises(NotExportable) as refused:
        terms_of(data, parties)
    assert refused.value.status == 422 and refused.value.problems
    return "\n".join(refused.value.problems)


@pytest.mark.parametrize("fmt", ["cii", "ubl"])
def test_the_xml_reads_back_as_the_same_data_and_passes_the_official_rules(fmt, tmp_path):
    data = complete_data()
    terms = terms_of(data)
    xml = render_xml(terms, fmt)  # XSD-checked inside
    read = parse_xml(xml)
    assert read.syntax == {"cii": "CII", "ubl": "UBL"}[fmt] and read.profile == "urn:cen.eu:en16931:2017"
    assert read.type_code == "380"
    assert differences(data, read) == []
    assert terms.filled == {}  # nothing filled in: the data had every figure
    assert schematron_errors(xml, fmt, tmp_path) == []


@pytest.mark.parametrize("fmt", ["cii", "ubl"])
def test_what_an_en16931_rule_computes_is_filled_in_and_said(fmt, tmp_path):
    data = complete_data()
    for key in ("subtotal", "tax_amount", "total_amount", "balance_amount"):
        data[key] = None
    data["line_items"][0]["unit"] = None
    data["line_items"][0]["line_no"] = None  # positions then
    terms = terms_of(data)
    assert set(terms.filled) == {"subtotal", "tax_amount", "total_amount", "balance_amount", "line_items[1].unit"}
    assert any(
        note.startswith("BT-106 sum of invoice line net amounts 100.00: computed by BR-CO-10") for note in terms.notes
    )
    assert "BT-130 line 1: no unit, written as C62 (one)" in terms.notes
    xml = render_xml(terms, fmt)
    read = parse_xml(xml)
    data["line_items"][0]["line_no"] = 1
    assert differences(data, read, terms.filled) == []
    assert schematron_errors(xml, fmt, tmp_path) == []


@pytest.mark.parametrize("fmt", ["cii", "ubl"])
def test_vat_rounded_line_by_line_is_the_invoices_own(fmt, tmp_path):
    data = complete_data() | {"tax_amount": 19.02, "total_amount": 119.02, "balance_amount": 100.02}
    terms = terms_of(data)  # 2 lines: up to 2 cents of rounding
    assert terms.data_dict["BG-23"][0]["BT-117"] == "19.02" and terms.data_dict["BT-110"] == "19.02"
    assert any(note.startswith("BT-117 VAT at 19 %: the invoice's 19.02, not 19.00") for note in terms.notes)
    xml = render_xml(terms, fmt)
    assert differences(data, parse_xml(xml)) == [] and schematron_errors(xml, fmt, tmp_path) == []
    assert "BR-CO-14" in problems_of(complete_data() | {"tax_amount": 19.03, "total_amount": 119.03})


def test_the_countries_are_said_where_they_come_from():
    notes = terms_of(complete_data()).notes
    assert any(n.startswith("BT-40 seller country code DE: the country prefix of the seller's VAT id") for n in notes)
    assert any(n.startswith("BT-55 buyer country code DE: the country prefix of the tenant's VAT id") for n in notes)
    data = complete_data()
    data["vendor_address"] = "Kaerntner Strasse 1, 1010 Wien, Austria"
    terms = terms_of(data)
    assert terms.data_dict["BG-4"]["country_code"] == "AT"  # the address names it: the address wins
    assert not any(n.startswith("BT-40") for n in terms.notes)


def test_the_factur_x_pdf_is_pdf_a_3_and_reads_back(tmp_path):
    from pypdf import PdfReader

    data = complete_data()
    source = tmp_path / "upload.pdf"
    source.write_bytes(text_pdf(INVOICE_LINES))
    pdf = facturx_pdf(render_xml(terms_of(data), "cii"), source, "application/pdf")
    read = read_einvoice(pdf)
    assert read.xml_name == "factur-x.xml" and differences(data, read) == []
    reader = PdfReader(io.BytesIO(pdf))
    root = reader.trailer["/Root"]
    xmp = root["/Metadata"].get_object().get_data().decode()
    assert "<pdfaid:part>3</pdfaid:part>" in xmp and "<pdfaid:conformance>B</pdfaid:conformance>" in xmp
    assert "<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>" in xmp
    intent = root["/OutputIntents"][0].get_object()
    assert intent["/S"] == "/GTS_PDFA1" and intent["/DestOutputProfile"].get_object()["/N"] == 3
    assert reader.trailer["/ID"][0] and "/Encrypt" not in reader.trailer
    spec = root["/AF"][0].get_object()
    assert spec["/F"] == "factur-x.xml" and spec["/AFRelationship"] == "/Data"
    assert len(reader.pages) == 1 and [round(float(v)) for v in reader.pages[0].mediabox] == [0, 0, 595, 842]
    assert not any("/Font" in (page.get("/Resources") or {}) for page in reader.pages)  # images only: no fonts


def test_every_page_keeps_its_size(tmp_path):
    from pypdf import PdfReader

    source = tmp_path / "scan.pdf"
    source.write_bytes(image_pdf(pages=2))  # 200 x 280 pt pages
    pdf = facturx_pdf(render_xml(terms_of(complete_data()), "cii"), source, "application/pdf")
    sizes = [[round(float(v)) for v in page.mediabox] for page in PdfReader(io.BytesIO(pdf)).pages]
    assert sizes == [[0, 0, 200, 280], [0, 0, 200, 280]]


def test_an_image_upload_is_the_visible_page(tmp_path):
    source = tmp_path / "upload.png"
    source.write_bytes(png_with_text("Total EUR 119.00", size=(300, 150)))
    pdf = facturx_pdf(render_xml(terms_of(complete_data()), "cii"), source, "image/png")
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 1 and read_einvoice(pdf).fields["total_amount"] == 119


def test_an_empty_invoice_lists_every_business_term_it_lacks():
    empty = {key: None for key in complete_data()} | {"line_items": []}
    problems = problems_of(empty, Parties("payable", None))
    for term in ("BT-1 ", "BT-2 ", "BT-5 ", "BT-27 ", "BT-31 ", "BT-40 ", "BT-44 ", "BT-55 ", "BG-25 "):
        assert term in problems
    assert "BR-16" in problems and "appliance tenant update TENANT_ID --tax-id" in problems


def _with(**changes):
    data = complete_data()
    for key, value in changes.items():
        if key.startswith("line1_"):
            data["line_items"][0][key[6:]] = value
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    "data, expected",
    [
        (_with(customer_name=None), "BT-44 buyer name: the invoice has no customer name"),
        (_with(vendor_tax_id=None), "BT-31 seller VAT identifier: the invoice has no vendor tax id (BR-CO-26"),
        (_with(vendor_tax_id="143/123/45678"), "BT-31 seller VAT identifier: the vendor tax id '143/123/45678' has no"),
        (_with(invoice_date="5 March"), "BT-2 invoice issue date: '5 March' is not a date (YYYY-MM-DD)"),
        (_with(due_date="soon"), "BT-9 payment due date: 'soon' is not a date"),
        (_with(currency="EURO"), "BT-5 invoice currency code: 'EURO' is no ISO 4217 code"),
        (_with(line1_tax=None), "BT-152 invoiced item VAT rate: line 1 has none"),
        (_with(line1_tax=0), "BT-151 invoiced item VAT category code: line 1 has a VAT rate of 0 %"),
        (_with(line1_unit="pcs"), "BT-130 invoiced quantity unit of measure: line 1's unit 'pcs' is no UN/ECE Rec. 20"),
        (_with(line1_quantity=None), "BT-129 invoiced quantity: line 1 has none"),
        (_with(line1_unit_price=None), "BT-146 item net price: line 1 has none"),
        (_with(line1_unit_price=-1), "BT-146 item net price: line 1 is negative (-1), and EN 16931 allows no negative"),
        (_with(line1_line_total=None), "BT-131 invoice line net amount: line 1 has none"),
        (_with(line1_line_total=20.005), "BT-131 invoice line net amount: line 1 is 20.005: EN 16931 amounts have at"),
        (_with(line1_description=None), "BT-153 item name: line 1 has no description"),
        (_with(subtotal=99.0), "BT-106 sum of invoice line net amounts: the invoice's subtotal is 99.0, but BR-CO-10"),
        (_with(tax_amount=18.9), "BT-110 invoice total VAT amount: the invoice's tax_amount is 18.9, but BR-CO-14"),
        (_with(total_amount=120.0), "BT-112 invoice total amount with VAT: the invoice's total_amount is 120.0, but"),
        (
            _with(balance_amount=99.0),
            "BT-115 amount due for payment: the invoice's balance_amount is 99.0, but BR-CO",
        ),
        (_with(due_date=None, payment_terms=None), "BT-9 payment due date or BT-20 payment terms: the invoice has"),
        (_with(line1_tax=7.0), "BT-96 / BT-103 VAT rate of the document's discount or charges: the lines have several"),
    ],
)
def test_each_gap_is_refused_naming_its_business_term(data, expected):
    assert expected in problems_of(data)


def test_the_buyer_of_a_receivable_invoice_has_no_country():
    assert "BT-55 buyer country code: the invoice has no buyer address (the buyer is not the tenant)" in problems_of(
        complete_data(), Parties("receivable", TENANT_VAT)
    )


def test_a_document_the_xsd_refuses_is_not_offered():
    xml = render_xml(terms_of(complete_data()), "ubl").replace(b"<cbc:ID>INV-2024-001</cbc:ID>", b"")
    with pytest.raises(DocumentInvalid) as refused:
        check_xsd(xml, "ubl")
    assert refused.value.status == 500 and "not valid against the official XSD" in refused.value.message


def test_the_code_lists_are_the_official_ones():
    codes = code_lists()
    assert {"DE", "FR", "GR"} <= codes.countries and {"C62", "H87", "KGM", "HUR"} <= codes.units
    assert {"EUR", "CHF", "JPY"} <= codes.currencies and "EURO" not in codes.currencies


def test_the_icc_profile_is_the_one_the_readme_names():
    import hashlib

    from appliance.export import visible_pdf

    icc = (Path(visible_pdf.__file__).parent / "sRGB2014.icc").read_bytes()
    readme = (Path(visible_pdf.__file__).parent / "README.md").read_text()
    assert hashlib.sha256(icc).hexdigest() in readme and icc[8:10] == b"\x02\x00"  # ICC version 2
