"""The accuracy benchmark's tables of the learned scorer: coverage at each target's threshold,
the reasons that held documents back, the calibration error (bench/accuracy.py)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.accuracy import _reason_kind, calibration_error, coverage, held_back
from tests.conftest import DATASETS, needs_datasets


def write(pred: Path, source: str, stem: str, record: dict) -> None:
    (pred / source).mkdir(parents=True, exist_ok=True)
    (pred / source / f"{stem}.json").write_text(json.dumps(record))


def test_reasons_are_counted_once_per_document_and_kind(tmp_path):
    write(
        tmp_path,
        "sroie",
        "a",
        {
            "processingStatus": "needs_review",
            "validationErrors": [
                "total_amount 50.00 is not certain (62% sure): it stands on 'CASH 50.00'",
                "line items sum to 20.00, subtotal is 100.00",
                "line items sum to 30.00, subtotal is 100.00",
            ],
        },
    )
    write(
        tmp_path,
        "sroie",
        "b",
        {"processingStatus": "needs_review", "validationErrors": ["vendor_name not found in the document"]},
    )
    write(tmp_path, "sroie", "c", {"processingStatus": "completed", "validationErrors": []})
    assert held_back(tmp_path) == {
        "line items do not add up": 1,
        "total_amount not certain (scorer)": 1,
        "vendor_name not found": 1,
    }
    assert _reason_kind("totals do not add up: subtotal 1.00 ...") == "totals do not add up"
    assert _reason_kind("printed total_amount 120.00 differs") == "print differs from the e-invoice XML"


@needs_datasets
def test_coverage_completes_at_each_threshold_and_scores_the_key_fields(tmp_path):
    source = DATASETS / "sroie"
    entry = json.loads((source / "manifest.json").read_text())[0]
    stem = Path(entry["file"]).stem
    truth = json.loads((source / f"{stem}.json").read_text())
    confident = {name: {"confidence": 0.97} for name in truth if truth[name] is not None}
    write(
        tmp_path,
        "sroie",
        stem,
        {
            "processingStatus": "needs_review",
            "keyConfidence": 0.9,
            "ocrConfidence": 0.95,  # a receipt photo: the OCR threshold applies
            "data": truth,
            "evidence": confident,
            "validationErrors": ["vendor_name 'X' is not certain (90% sure)"],
        },
    )
    cuts = {"0.95": {"text_layer": 0.95, "ocr": 0.85}, "0.99": {"text_layer": 0.85, "ocr": 0.95}}
    found = coverage(tmp_path, DATASETS, cuts)
    documents = found["0.95"][0]
    assert documents > 1  # every dev document counts; those not predicted never complete
    assert found["0.95"][1:] == (1, 1) and found["0.99"][1:] == (0, 0)
    error, fields = calibration_error(tmp_path, DATASETS)
    assert fields >= 3 and abs(error - 0.03) < 1e-9  # confidence 0.97, all right
