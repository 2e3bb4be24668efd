"""The OCR benchmark's figures (bench/ocr.py) on hand-made texts, and one small run of
scripts/bench-ocr on real receipts with the fake engine (loaded by its "module:Class" name)."""

from __future__ import annotations

import subprocess

import pytest

from bench.ocr import Score, amounts_and_dates, receipts, score, truth_text, words
from bench.server import ROOT
from tests.conftest import DATASETS, needs_datasets


def test_amounts_and_dates_are_found_verbatim_in_any_order():
    truth = "TOTAL RM30.90\nDATE 18-11-18\nCASH 1,234.00 25/12/2018"
    assert amounts_and_dates(truth) == ["30.90", "18-11-18", "1,234.00", "25/12/2018"]
    got = score(truth, "25/12/2018 1,234.00\nTOTAL RM 30.90")
    assert (got.amounts_found, got.amounts) == (3, 4)


def test_a_glued_word_holds_none_of_its_parts():
    truth = "MR D.I.Y. (M) SDN BHD\nSDN BHD"
    assert words(truth) == {"sdn": 2, "bhd": 2}  # "MR", "D", "I", "Y", "M" are under 3 letters
    assert score(truth, "MR D.I.Y.(M)SDNBHD").words_found == 0
    assert score(truth, "mr diy sdn bhd").words_found == 2  # once each: counted with multiplicity


def test_scores_add_up_and_an_empty_truth_counts_as_read():
    total = Score(1, 2, 3, 4) + Score(1, 0, 1, 0)
    assert (total.amount_share, total.word_share) == (1.0, 1.0)
    assert Score().amount_share == 1.0


@needs_datasets
def test_every_dev_receipt_has_an_image_and_a_line_truth_with_amounts():
    pairs = receipts(DATASETS / "sroie")
    assert len(pairs) >= 20
    for image, lines in pairs:
        assert image.stem == lines.name.removesuffix(".lines.csv")
        assert amounts_and_dates(truth_text(lines)), lines


@needs_datasets
def test_bench_ocr_writes_its_table(tmp_path):
    out = tmp_path / "ocr.md"
    command = [str(ROOT / "scripts" / "bench-ocr"), "--engines", "tests.fakes.ocr:TextOcr", "--limit", "2"]
    result = subprocess.run([*command, "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    report = out.read_text()
    assert "## dev receipts (datasets/sroie), receipts (2)" in report
    assert "| tests.fakes.ocr:TextOcr | " in report and "missed amounts or dates in: 004" in report
    # the dev PDFs rendered as scans: every page with a text layer is a unit, scored against it
    pages = report.split("## dev PDFs rendered as scans")[1]
    assert "| tests.fakes.ocr:TextOcr | " in pages and "missed amounts or dates in: AmazonWebServices p1: 4.11" in pages


def test_a_variant_row_names_its_engine_and_model_settings():
    from bench.ocr import VARIANT_NOTES, VARIANTS, row_models

    assert set(VARIANTS) == set(VARIANT_NOTES)
    combined = row_models("ppocr+v4det")
    assert combined.ocr_engine == "ppocr" and dict(combined.ocr_options)["det_model"].endswith(
        "ch_PP-OCRv4_det_infer.onnx"
    )
    assert row_models("ppocr@300dpi").dpi == 300
    assert row_models("tesseract").ocr_engine == "tesseract"


@pytest.mark.model
def test_the_pre_processing_row_loads_as_an_engine():
    from bench.ocr import row_models
    from models.registry import load_ocr

    engine = load_ocr(row_models("ppocr+autocontrast").ocr_engine, lang="ch", threads=1)
    assert engine.name == "ppocr+autocontrast"
