"""The steps (``pipeline.steps``) on documents the tests make: OCR of scanned pages with the
OCR_MAX_PDF_PAGES limit, the visual-only mode, the OCR engines by name, and routing of a hybrid
e-invoice."""

from __future__ import annotations

import pytest

from models.registry import UnknownBackend, load_ocr
from pipeline.context import JobContext
from pipeline.reading.sniff import PDF
from pipeline.reading.text import pdf_text
from pipeline.runner import Extractor
from tests.conftest import fake_models
from tests.fakes.ocr import TextOcr
from tests.support.docs import image_pdf, text_pdf

FAKES = fake_models()


def test_scanned_pdf_is_ocrd_up_to_the_page_limit():
    calls = []

    def engine():
        calls.append(1)
        return TextOcr()

    doc = pdf_text(image_pdf(pages=5), engine, max_ocr_pages=3)
    assert [p.source for p in doc.pages] == ["ocr"] * 3 and doc.skipped_pages == 2
    assert doc.ocr_engine == "fake-ocr" and doc.ocr_confidence == 0.9
    result = Extractor(FAKES).extract(JobContext("x", PDF, max_ocr_pages=3), image_pdf(pages=5))
    assert "2 page(s) over OCR_MAX_PDF_PAGES skipped" in result.routing_reason
    assert result.extraction_provider == "fake-ocr+rules+fake-echo"  # every document goes through the model


def test_visual_only_ignores_the_text_layer():
    result = Extractor(FAKES).extract(JobContext("x", PDF, visual_only=True), text_pdf(["Total 1.00"]))
    assert "text from ocr" in result.routing_reason


def test_ocr_lang_mapping_and_unknown_engines():
    from models.ocr import TESSERACT_LANGS

    assert TESSERACT_LANGS == {"ch": "chi_sim+eng", "en": "eng", "th": "tha+eng"}
    with pytest.raises(ValueError, match="no Thai"):
        load_ocr("rapidocr", lang="th")
    with pytest.raises(UnknownBackend, match="choose one of"):
        load_ocr("nonesuch")
    with pytest.raises(UnknownBackend, match="cannot load"):
        load_ocr("tests.fakes.ocr:Missing")


def test_hybrid_e_invoice_whose_print_disagrees_needs_review():
    """A PDF whose embedded CII says 119.00 while its print says 120.00 (tests/support/docs.py makes it)."""
    from tests.support.docs import hybrid_pdf

    result = Extractor(FAKES).extract(JobContext("x", PDF), hybrid_pdf(printed_total="120.00", xml_total="119.00"))
    assert result.extraction_tier == 0 and result.data["total_amount"] == 119.0
    assert result.processing_status == "needs_review"
    assert any("total_amount" in e and "120.00" in e for e in result.validation_errors)
    agree = Extractor(FAKES).extract(JobContext("x", PDF), hybrid_pdf(printed_total="119.00", xml_total="119.00"))
    assert agree.processing_status == "completed", agree.validation_errors
    visual = Extractor(FAKES).extract(
        JobContext("x", PDF, visual_only=True), hybrid_pdf(printed_total="119.00", xml_total="119.00")
    )
    assert visual.extraction_tier == 2  # visual-only ignores the XML


def test_every_result_keeps_the_text_templates_read_and_a_trial_runs_the_template_step_on_it():
    """``ExtractionResult.layout_text`` is ``layout_text`` of the text read, whatever the outcome
    (a failed forced tier too); ``DocumentText.of_text`` gives it back unchanged, and
    ``template_trial`` runs the template step alone on it."""
    from pipeline.document import DocumentText
    from pipeline.steps import TEMPLATE_TRIAL, template_trial
    from pipeline.templates.invoice2data import layout_text
    from tests.appliance.test_vendors import ACME_TEMPLATE
    from tests.support.docs import INVOICE_LINES, hybrid_pdf

    pdf = text_pdf(INVOICE_LINES)
    read = layout_text(pdf_text(pdf, _no_ocr, max_ocr_pages=0))
    assert "ACME Tools GmbH" in read and "Total EUR 119.00" in read
    assert Extractor(FAKES).extract(JobContext("x", PDF), pdf).layout_text == read
    failed = Extractor(FAKES).extract(JobContext("x", PDF, force_tier=1), pdf)
    assert failed.processing_status == "failed" and failed.layout_text == read
    assert "Total EUR 119.00" in Extractor(FAKES).extract(JobContext("x", PDF), hybrid_pdf()).layout_text  # tier 0
    assert layout_text(DocumentText.of_text(read)) == read
    assert [step.name for step in TEMPLATE_TRIAL] == ["template"]
    work = template_trial(DocumentText.of_text(read), "v1", ACME_TEMPLATE)
    assert work.ran == ["template"] and work.template.fields["total_amount"] == 119.0
    assert work.template_note == "vendorId given on upload"  # forced, as an upload naming the vendor
    nothing = template_trial(DocumentText.of_text(read), "v1", ACME_TEMPLATE.replace("Invoice Date:", "Datum:"))
    assert nothing.template is None and "date" in nothing.template_misses[0]


def _no_ocr():
    raise AssertionError("a text-layer PDF needs no OCR")


def test_held_reasons_name_what_holds_a_document_whatever_the_scorer_chose():
    """``held_reasons``: what serving's validation holds a document for, given the key fields the
    scorer would choose (training fits the thresholds on the documents it leaves free)."""
    from decimal import Decimal

    from pipeline.document import DocumentText
    from pipeline.steps import held_reasons, select

    doc = DocumentText.of_text(
        "ACME Tools GmbH\nInvoice No: 42\nDate: 2024-03-01\nSubtotal 100.00\nVAT 19% 19.00\nTotal EUR 119.00"
    )
    tool = Extractor(FAKES)
    work = tool.work(JobContext("x", PDF), doc=doc, steps=select(skip={"einvoice", "tier 0 forced"}, until="rules"))
    assert held_reasons(work, tool.kit, {"total_amount": Decimal("119.00")}) == []
    reasons = held_reasons(work, tool.kit, {"total_amount": Decimal("11.90")})
    assert reasons and reasons[0].startswith("totals do not add up")


def test_a_tax_read_as_large_as_the_total_does_not_hold_a_sure_receipt():
    """sroie dev 506: the rules took 'SUB-TOTAL (GST) 14.00' for the GST; the receipt's key
    fields were right and it went to review for 'tax_amount 14.00 is not less than
    total_amount 14.00' (``arbitrate.tax_within_total`` drops such a tax)."""
    from decimal import Decimal

    from pipeline.document import DocumentText
    from pipeline.steps import held_reasons, select

    doc = DocumentText.of_text(
        "AIK HUAT HARDWARE SDN BHD\nDate: 2018-03-01\nSUB-TOTAL (GST) 14.00\nTOTAL 14.00\nCASH 20.00\nCHANGE 6.00"
    )
    tool = Extractor(FAKES)
    work = tool.work(JobContext("x", PDF), doc=doc, steps=select(skip={"einvoice", "tier 0 forced"}, until="rules"))
    assert work.rules.fields["tax_amount"] == Decimal("14.00")  # what the rules read
    assert held_reasons(work, tool.kit, {"total_amount": Decimal("14.00")}) == []


def test_the_address_is_read_under_the_vendor_the_scorer_chose():
    """sroie 003: a note handwritten above the header was the rules' vendor, the shop's name
    the scorer's; the address comes from under the chosen name (``address_below``)."""
    from pipeline.decision.arbitrate import Decision
    from pipeline.decision.candidates import Candidate
    from pipeline.decision.scorer import FieldScore
    from pipeline.rules import address_below
    from pipeline.rules.layout import build_lines
    from pipeline.schema import Source
    from pipeline.steps import _address_under_chosen_vendor, select
    from tests.pipeline.rules.test_rules import ocr_page

    doc = ocr_page(
        "40: 96 tan woon yann | size 40",
        "107: 87 YONGFATT ENTERPRISE | size 25",
        "135: 172 (JM0517726) | size 24",
        "159: 103 NO.122,124. JALAN DEDAP 13 | size 20",
        "182: 137 81100 JOHOR BAHRU | size 20",
        "219: 158 TEL 07-3523888 | size 20",
        "600: 18 TOTAL | 300 14.00",
    )
    note, shop = build_lines(doc)[:2]
    tool = Extractor(FAKES)
    work = tool.work(JobContext("x", PDF), doc=doc, steps=select(skip={"einvoice", "tier 0 forced"}, until="rules"))
    work.rules.evidence["vendor_name"] = note.evidence()  # the rules' reading of sroie 003
    chosen = Candidate("vendor_name", "YONGFATT ENTERPRISE", {}, evidence=shop.evidence())
    work.scores = {"vendor_name": FieldScore("vendor_name", chosen.value, 0.99, Source.RULES, chosen, None)}
    work.decisions = {"vendor_address": Decision("YONGFATT ENTERPRISE, NO.122,124.", Source.RULES, "rules")}
    _address_under_chosen_vendor(work)
    assert work.decisions["vendor_address"].value == "NO.122,124. JALAN DEDAP 13, 81100 JOHOR BAHRU"
    assert work.rules.evidence["vendor_address"]["text"] == "81100 JOHOR BAHRU"

    assert address_below(doc, {"page": 1, "bbox": [0.0, 0.0, 1.0, 1.0]}, "YONGFATT") is None  # no such line

    work.decisions = {"vendor_address": Decision("Musterstraße 3", Source.MODEL, "model")}
    _address_under_chosen_vendor(work)  # only the rules' address gives way
    assert work.decisions["vendor_address"].value == "Musterstraße 3"
