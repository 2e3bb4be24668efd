"""Evidence and calibrated confidence: locate() on a synthetic page, build_evidence shapes,
confidence bounds and ordering, and (when the dev datasets are present) calibration on them."""

from __future__ import annotations

import pytest

from pipeline.decision.confidence import bucket_chain, confidence, fit, load_table, predict_with, reliability
from pipeline.decision.evidence import arithmetic_status, build_evidence, field_features, locate
from pipeline.document import DocumentText, Line, Page, Word
from pipeline.values import normalise
from tests.paths import ROOT
from training import calibrate_confidence

REPO = ROOT
DATASETS = REPO.parent / "shared" / "datasets"


def _line(text: str, y: float, confidence: float | None = None) -> Line:
    """A line of words 6 units per character wide, 10 high, starting at x=50."""
    words, x = [], 50.0
    for token in text.split():
        words.append(Word(token, (x, y, x + 6 * len(token), y + 10), confidence))
        x += 6 * (len(token) + 1)
    return Line(text, (50.0, y, x - 6, y + 10), tuple(words), confidence)


def _doc(source: str = "text_layer", confidence: float | None = None) -> DocumentText:
    texts = [
        "ACME Bürobedarf GmbH",
        "Musterstraße 1",
        "12345 Berlin",
        "Rechnung Nr. INV-2024/001",
        "Datum: 03.04.2024",
        "Widget 2 x 595,00 1.190,00",
        "Zwischensumme 1.000,00 EUR",
        "MwSt 19% 190,00",
        "Gesamtbetrag 1.190,00 EUR",
    ]
    lines = tuple(_line(text, 40.0 + 20 * i, confidence) for i, text in enumerate(texts))
    return DocumentText(pages=[Page(1, 595, 842, lines, source)], ocr_engine="fake" if source == "ocr" else None)


def test_locate_amounts_in_printed_formats_prefers_the_labelled_line():
    doc = _doc()
    page, bbox, text = locate(1190.0, doc, "total_amount")
    assert (page, text) == (1, "Gesamtbetrag 1.190,00 EUR")
    assert bbox == [50.0, 200.0, bbox[2], 210.0] and bbox[2] > 50
    assert locate(1190.0, doc)[2] == "Widget 2 x 595,00 1.190,00"  # no field: the first line showing it
    assert locate(1000, doc, "subtotal")[2] == "Zwischensumme 1.000,00 EUR"
    assert locate(1234.56, doc) is None


def test_locate_dates_ids_names_and_multi_line_values():
    doc = _doc()
    assert locate("2024-04-03", doc, "invoice_date")[2] == "Datum: 03.04.2024"
    assert locate("inv 2024 001", doc, "invoice_number")[2] == "Rechnung Nr. INV-2024/001"
    assert locate("acme  BÜROBEDARF gmbh", doc, "vendor_name")[2] == "ACME Bürobedarf GmbH"
    page, bbox, text = locate("Musterstraße 1, 12345 Berlin", doc, "vendor_address")
    assert page == 1 and text == "Musterstraße 1 / 12345 Berlin"
    assert bbox[1] == 60.0 and bbox[3] == 90.0
    assert locate("EUR", doc, "currency")[2] == "Zwischensumme 1.000,00 EUR"
    assert locate("Nowhere Ltd", doc, "vendor_name") is None
    assert locate(None, doc) is None and locate("x", None) is None and locate("", doc) is None


def _data(**header) -> dict:
    return normalise.data(header, [], "raw text")


def test_arithmetic_status_confirms_and_flags():
    ok = arithmetic_status(_data(subtotal=1000, tax_amount=190, total_amount=1190, currency="EUR"))
    assert ok == {"subtotal": "ok", "tax_amount": "ok", "total_amount": "ok", "currency": "na"}
    data = _data(subtotal=1000, tax_amount=190, total_amount=1200)
    from pipeline.values.validate import validate

    bad = arithmetic_status(data, validate(data))
    assert bad["total_amount"] == "bad" and bad["subtotal"] == "bad"
    disputed = arithmetic_status(
        _data(total_amount=1190, invoice_number="A1"),
        ["printed total_amount 1200.00 differs from the e-invoice XML 1190.00"],
    )
    assert disputed == {"invoice_number": "na", "total_amount": "disputed"}


def test_build_evidence_shapes_and_sources():
    doc = _doc()
    data = _data(
        invoice_number="INV-2024/001",
        invoice_date="2024-04-03",
        vendor_name="ACME Bürobedarf GmbH",
        subtotal=1000,
        tax_amount=190,
        total_amount=1190,
        currency="EUR",
    )
    rules_evidence = {
        "invoice_number": {"page": 1, "bbox": [50.0, 100.0, 200.0, 110.0], "text": "Rechnung Nr. INV-2024/001"}
    }
    evidence = build_evidence(
        data, doc=doc, source_by_field={"vendor_name": "llm"}, default_source="rules", rules_evidence=rules_evidence
    )
    assert set(evidence) == {
        "invoice_number",
        "invoice_date",
        "vendor_name",
        "subtotal",
        "tax_amount",
        "total_amount",
        "currency",
    }
    for item in evidence.values():
        assert set(item) == {"page", "bbox", "text", "confidence", "source"}
        assert 0.0 <= item["confidence"] <= 1.0
        assert item["page"] == 1 and len(item["bbox"]) == 4 and item["text"]
    assert evidence["invoice_number"]["bbox"] == [50.0, 100.0, 200.0, 110.0]
    assert evidence["vendor_name"]["source"] == "llm" and evidence["total_amount"]["source"] == "rules"
    assert evidence["total_amount"]["text"] == "Gesamtbetrag 1.190,00 EUR"
    assert build_evidence(None, doc=doc) == {} and build_evidence(data, doc=None)["total_amount"]["page"] is None


def test_build_evidence_tier0_disputed_field_is_less_sure():
    doc = _doc()
    data = _data(invoice_number="INV-2024/001", total_amount=1190, subtotal=1000, tax_amount=190)
    errors = ["printed total_amount 1200.00 differs from the e-invoice XML 1190.00"]
    evidence = build_evidence(data, doc=doc, default_source="einvoice", errors=errors)
    assert {item["source"] for item in evidence.values()} == {"einvoice"}
    assert evidence["invoice_number"]["confidence"] >= 0.95
    assert evidence["total_amount"]["confidence"] < evidence["invoice_number"]["confidence"]
    assert evidence["total_amount"]["confidence"] <= 0.9
    unprinted = build_evidence(_data(vendor_email="x@y.example"), doc=doc, default_source="einvoice")
    assert unprinted["vendor_email"]["page"] is None and unprinted["vendor_email"]["bbox"] is None


FIELDS = (
    "invoice_number",
    "invoice_date",
    "vendor_name",
    "vendor_address",
    "currency",
    "subtotal",
    "tax_amount",
    "total_amount",
)


@pytest.mark.parametrize("table", [None, {}], ids=["committed", "priors-only"])
def test_confidence_in_unit_interval_and_einvoice_above_llm(table):
    predict = (lambda f, s, x: confidence(f, s, x)) if table is None else (lambda f, s, x: predict_with(table, f, s, x))
    for page_source, ocr in (("text_layer", None), ("ocr", 0.95), ("ocr", 0.5), ("none", None)):
        for arithmetic in ("ok", "na", "bad"):
            for labelled in (True, False):
                feats = {
                    "page_source": page_source,
                    "ocr_confidence": ocr,
                    "arithmetic": arithmetic,
                    "labelled": labelled,
                }
                for field in FIELDS:
                    values = {s: predict(field, s, feats) for s in ("einvoice", "template", "rules", "llm", "human")}
                    assert all(0.0 <= v <= 1.0 for v in values.values()), values
                    assert values["einvoice"] > values["llm"], (field, feats, values)
                    assert values["human"] > values["llm"], (field, feats, values)
    assert 0.0 <= confidence("total_amount", "rules") <= 1.0  # no features at all


def test_fit_shrinks_small_buckets_and_orders_by_evidence():
    feats = {"page_source": "text_layer", "arithmetic": "na", "labelled": True}
    records = [{"field": "total_amount", "source": "rules", "features": feats, "ok": i % 10 != 0} for i in range(100)]
    records += [
        {"field": "vendor_name", "source": "rules", "features": {**feats, "labelled": False}, "ok": i % 2 == 0}
        for i in range(40)
    ]
    table = fit(records)
    total = predict_with(table, "total_amount", "rules", feats)
    name = predict_with(table, "vendor_name", "rules", {**feats, "labelled": False})
    assert abs(total - 0.9) < 0.03 and abs(name - 0.5) < 0.08
    assert bucket_chain("total_amount", "rules", feats)[0] == ("rules", None)
    table_rows = reliability([(0.95, True), (0.95, False), (0.15, False)])
    assert table_rows["n"] == 3 and 0.0 <= table_rows["ece"] <= 1.0


def test_field_features_read_the_ocr_line():
    doc = _doc("ocr", confidence=0.97)
    line = doc.pages[0].lines[-1]
    feats = field_features(
        "total_amount", "rules", {"page": 1, "bbox": [round(v, 1) for v in line.bbox], "text": line.text}, doc, "ok"
    )
    assert feats == {
        "page_source": "ocr",
        "ocr_confidence": 0.97,
        "arithmetic": "ok",
        "labelled": True,
        "located": True,
    }


@pytest.mark.skipif(not DATASETS.is_dir(), reason=f"dev datasets not present at {DATASETS} (../shared/datasets)")
def test_committed_table_is_calibrated_on_the_dev_pdfs():
    """Fields given >= 0.85 are right at least 80% of the time on the dev PDFs (no OCR needed)."""
    assert load_table().get("buckets"), (
        "pipeline/decision/confidence_table.json is missing; run scripts/calibrate-confidence"
    )
    records = calibrate_confidence.collect(DATASETS, sources={"invoice2data", "zugferd-corpus"})
    assert len(records) > 100
    pairs = [(confidence(r["field"], r["source"], r["features"]), r["ok"]) for r in records]
    sure = [ok for conf, ok in pairs if conf >= 0.85]
    assert len(sure) > 50 and sum(sure) / len(sure) >= 0.8
    assert reliability(pairs)["ece"] < 0.1
