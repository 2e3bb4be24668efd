"""The built-in layout of e-invoice XML visualisations (``pipeline.templates.visualisation``):
recognised by its title and the EN 16931 terms beside its labels, read by those terms, its lines
the positions table's DETAIL rows, and doubts where what it read does not hold together. Pages
are ``tests.support.visualisation``'s print of the Factur-X test invoices, or rows built here."""

from __future__ import annotations

from decimal import Decimal

import pytest

from appliance.settings import LlmSettings, OcrSettings, ReviewSettings, Settings
from pipeline.context import JobContext
from pipeline.document import DocumentText, Line, Page, Word
from pipeline.reading.sniff import JPEG, PDF
from pipeline.reading.text import pdf_text
from pipeline.runner import Extractor
from pipeline.templates.visualisation import read_visualisation
from tests.conftest import fake_models, needs_datasets
from tests.paths import DATASETS
from tests.support.docs import INVOICE_LINES, text_pdf
from tests.support.facturx_extended import OFFICE, SERVICE
from tests.support.visualisation import TITLE_TOKEN, scan_jpeg, visualisation_pdf


def printed(plan) -> DocumentText:
    """The plan's visualisation as the pipeline reads its text layer."""
    return pdf_text(visualisation_pdf(plan), None, max_ocr_pages=0)


def row(y: float, *cells: tuple[float, str], confidence: float | None = None) -> Line:
    """A line of ``(x, text)`` cells, one word a cell, 9 pt."""
    words = tuple(Word(text, (x, y, x + 5 * len(text), y + 9), confidence) for x, text in cells)
    return Line(" ".join(w.text for w in words), (words[0].bbox[0], y, words[-1].bbox[2], y + 9), words)


def page(*lines: Line, source: str = "text_layer") -> DocumentText:
    return DocumentText(pages=[Page(1, 595, 842, lines, source)])


def test_the_invoice_is_read_by_its_terms_not_by_the_heading():
    found = read_visualisation(printed(OFFICE))
    assert found is not None and found.builtin and found.doubts == []
    assert found.fields == {
        "invoice_number": "RE-2025-0815",  # not the heading's DWC2025, not the term BT-1
        "invoice_date": "2025-03-14",
        "due_date": "2025-04-13",
        "vendor_name": "Bürotechnik Sommer GmbH",
        "vendor_tax_id": "DE812345678",
        "customer_name": "Stadtwerke Neustadt GmbH",
        "currency": "EUR",
        "subtotal": Decimal("2000.00"),
        "tax_amount": Decimal("380.00"),
        "total_amount": Decimal("2380.00"),  # the "Gesamtbetrag" of the totals table
        "balance_amount": Decimal("2380.00"),
    }
    assert TITLE_TOKEN not in found.fields.values()


def test_the_lines_are_the_detail_rows_as_in_the_xml():
    found = read_visualisation(printed(OFFICE))
    assert [
        (i["description"], i["quantity"], i["unit"], i["unit_price"], i["line_total"]) for i in found.line_items
    ] == [
        ("Schreibtisch höhenverstellbar", Decimal("2"), "H87", Decimal("450.00"), Decimal("900.00")),
        ("Monitorarm doppelt", Decimal("4"), "H87", Decimal("75.00"), Decimal("300.00")),
        ("Kabelkanal 1,5 m", Decimal("10"), "H87", Decimal("30.00"), Decimal("300.00")),
        ("Montage vor Ort", Decimal("8"), "HUR", Decimal("60.00"), Decimal("480.00")),
        ("Entsorgung Verpackung", Decimal("1"), "C62", Decimal("20.00"), Decimal("20.00")),
    ]
    service = read_visualisation(printed(SERVICE))
    assert [i["description"] for i in service.line_items] == [line.name for line in SERVICE.counted()]
    assert service.fields["shipping_cost"] == Decimal("15.00")  # the charge's reason reads like freight
    assert "service_charge" not in service.fields


def test_terms_before_their_labels_and_values_in_their_own_column():
    doc = page(
        row(40, (50, "Visualisierung"), (120, "eRechnung")),
        row(70, (50, "BT-l"), (90, "Rechnungsnummer:"), (175, "4711")),  # OCR's l for the 1
        row(85, (50, "BT-2"), (90, "Rechnungsdatum"), (250, "01.02.2025")),
        row(100, (50, "BT"), (62, "27"), (90, "Firmenname"), (250, "ACME"), (275, "GmbH")),  # the term read apart
        row(115, (50, "(BT-109)"), (90, "Nettobetrag"), (250, "100,00")),
        row(130, (50, "(BT-110)"), (90, "Umsatzsteuer"), (250, "19,00")),
        row(145, (50, "(BT-112)"), (90, "Gesamtbetrag"), (250, "119,00"), (290, "EUR")),
    )
    found = read_visualisation(doc)
    assert found is not None and found.doubts == []
    assert (found.fields["invoice_number"], found.fields["invoice_date"]) == ("4711", "2025-02-01")
    assert found.fields["vendor_name"] == "ACME GmbH"
    assert (found.fields["total_amount"], found.fields["currency"]) == (Decimal("119.00"), "EUR")


def test_a_positions_table_keeps_the_rows_that_count():
    header = row(200, (50, "Pos."), (80, "Art"), (140, "Bezeichnung"), (300, "Menge"), (340, "Nettobetrag"))
    doc = page(
        row(40, (50, "Visualisierung"), (120, "eRechnung")),
        row(70, (50, "Rechnungsnummer"), (200, "BT-1"), (250, "R-1")),
        row(85, (50, "Rechnungsdatum"), (200, "BT-2"), (250, "01.02.2025")),
        row(100, (50, "Gesamtbetrag"), (200, "BT-112"), (250, "119,00")),
        header,
        row(215, (50, "1"), (80, "GROUP"), (140, "Paket"), (340, "100,00")),
        row(230, (50, "1.1"), (80, "DETAIL"), (140, "Teil"), (300, "2"), (340, "60,00")),
        row(245, (140, "(lang)")),  # the description wrapped
        row(260, (50, "1.2"), (80, "INFORMATIONdavon"), (160, "Arbeit"), (340, "40,00")),  # run together
        row(275, (50, "2"), (140, "Ohne"), (180, "Untertyp"), (340, "40,00")),  # no subtype: counts
        row(300, (50, "Summe"), (200, "BT-106"), (250, "100,00")),
    )
    found = read_visualisation(doc)
    assert [(i["description"], i["quantity"], i["line_total"]) for i in found.line_items] == [
        ("Teil (lang)", Decimal("2"), Decimal("60.00")),
        ("Ohne Untertyp", None, Decimal("40.00")),
    ]


def totals_page(total: str, *, net: str | None = "100,00", confidence: float | None = None) -> DocumentText:
    lines = [
        row(40, (50, "Lesbarmachung"), (125, "der"), (145, "XML-Daten")),
        row(70, (50, "Rechnungsnummer"), (200, "BT-1"), (250, "R-1"), confidence=confidence),
        row(85, (50, "Rechnungsdatum"), (200, "BT-2"), (250, "2025-02-01")),
        row(115, (50, "Umsatzsteuer"), (200, "BT-110"), (250, "19,00")),
        row(130, (50, "Gesamtbetrag"), (200, "BT-112"), (250, total)),
    ]
    if net is not None:
        lines.append(row(100, (50, "Nettobetrag"), (200, "BT-109"), (250, net)))
    return page(*lines, source="ocr" if confidence else "text_layer")


def test_a_reading_that_does_not_hold_together_has_doubts():
    assert read_visualisation(totals_page("119,00")).doubts == []
    assert read_visualisation(totals_page("191,00")).doubts == [
        "e-invoice visualisation: net 100.00 + VAT 19.00 = 119.00, total_amount reads 191.00"
    ]
    assert read_visualisation(totals_page("119,00", net=None)).doubts == [
        "e-invoice visualisation: total_amount 119.00 is not checked by a net amount and VAT printed"
    ]
    assert read_visualisation(totals_page("119,00", confidence=0.6)).doubts == [
        "e-invoice visualisation: invoice_number 'R-1' read by OCR at confidence 0.60"
    ]


def test_other_pages_are_not_taken_for_a_visualisation():
    assert read_visualisation(pdf_text(text_pdf(INVOICE_LINES), None, max_ocr_pages=0)) is None
    # the terms without a title: a page that cites a few BT numbers is no visualisation
    no_title = totals_page("119,00")
    lines = no_title.pages[0].lines[1:]
    assert read_visualisation(page(*lines)) is None


@needs_datasets
def test_no_dev_e_invoice_print_is_taken_for_one():
    """The dev set's e-invoice prints are visualisations of another stylesheet (FeRD 2.2, no
    terms printed): the rules and the scorer read them as before."""
    pdfs = sorted((DATASETS / "zugferd-corpus").glob("*.pdf"))
    assert pdfs
    for path in pdfs:
        assert read_visualisation(pdf_text(path.read_bytes(), None, max_ocr_pages=0)) is None, path.name


@pytest.mark.parametrize("plan", [OFFICE, SERVICE], ids=lambda plan: plan.number)
def test_a_visualisation_without_its_xml_completes_as_the_built_in_layout(plan):
    result = Extractor(fake_models()).extract(JobContext("x", PDF), visualisation_pdf(plan))
    assert result.extraction_tier == 1 and "built-in layout e-invoice visualisation" in result.routing_reason
    assert result.processing_status == "completed", result.validation_errors
    data = result.data
    assert (data["invoice_number"], data["total_amount"]) == (plan.number, plan.totals()["gross"])
    assert [i["description"] for i in data["line_items"]] == [line.name for line in plan.counted()]


def test_a_visualisation_whose_totals_do_not_add_up_needs_review():
    pdf = visualisation_pdf(OFFICE).replace(b"(2.380,00 EUR)", b"(2.830,00 EUR)", 1)
    result = Extractor(fake_models()).extract(JobContext("x", PDF), pdf)
    assert result.processing_status == "needs_review"
    assert "e-invoice visualisation: net 2000.00 + VAT 380.00 = 2380.00, total_amount reads 2830.00" in (
        result.validation_errors
    )


@pytest.fixture(scope="module")
def real_ocr() -> Extractor:
    """The shipped CPU OCR engine (ppocr) and the bundled learned scorer; no model asked."""
    models = Settings(
        ocr=OcrSettings(engine="ppocr"), llm=LlmSettings(enabled=False), review=ReviewSettings(scorer=True)
    ).worker_models()
    return Extractor(models)


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.parametrize(
    ("plan", "media_type", "make"),
    [
        (OFFICE, PDF, visualisation_pdf),  # read visual-only: the page rendered at ocr.dpi and OCR'd
        (SERVICE, JPEG, lambda plan: scan_jpeg(visualisation_pdf(plan))),  # a skewed, blurred 150 dpi scan
    ],
    ids=["rendered", "scanned"],
)
def test_a_visualisation_read_from_pixels(real_ocr, plan, media_type, make):
    result = real_ocr.extract(JobContext("x", media_type, visual_only=True), make(plan))
    assert "text from ocr" in result.routing_reason and "built-in layout" in result.routing_reason
    data = result.data
    assert (data["invoice_number"], data["invoice_date"], data["total_amount"]) == (
        plan.number,
        plan.issued,
        plan.totals()["gross"],
    )
    assert (data["vendor_name"], data["currency"]) == (plan.seller.name, "EUR")
    assert [(i["description"], i["line_total"]) for i in data["line_items"]] == [
        (line.name, plan.amount(line)) for line in plan.counted()
    ]
    assert result.processing_status == "completed", result.validation_errors
