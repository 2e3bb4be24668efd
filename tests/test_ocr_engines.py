"""The real OCR engines on a real scanned receipt (skipped when the documents or the engine's
language data are absent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from models.registry import load_ocr
from tests.conftest import DATASETS, needs_datasets

pytestmark = [pytest.mark.model, needs_datasets]
RECEIPT = DATASETS / "sroie" / "004.jpg"


def tessdata_missing() -> bool:
    from models.tesseract_engine import find_tessdata

    try:
        find_tessdata("tha+eng")
        find_tessdata("chi_sim+eng")
        return False
    except FileNotFoundError:
        return True


def test_rapidocr_reads_the_receipt():
    lines = load_ocr("rapidocr", lang="ch", threads=1).recognize(Image.open(RECEIPT).convert("RGB"))
    text = "\n".join(line.text for line in lines)
    assert "TOTAL" in text.upper() and "30.90" in text
    assert all(0 <= line.confidence <= 1 and line.bbox[0] < line.bbox[2] for line in lines)


@pytest.mark.skipif(tessdata_missing(), reason="Debian's tesseract-ocr-eng/-chi-sim/-tha data is not installed")
@pytest.mark.parametrize("lang", ["en", "ch", "th"])
def test_tesseract_reads_the_receipt_in_every_ocr_lang(lang):
    lines = load_ocr("tesseract", lang=lang).recognize(Image.open(RECEIPT).convert("RGB"))
    text = "\n".join(line.text for line in lines)
    assert "TOTAL" in text.upper() and "SELANGOR" in text
    assert all(0 <= line.confidence <= 1 for line in lines)


def test_tesseract_names_the_missing_package(monkeypatch, tmp_path):
    from models.tesseract_engine import DEBIAN_TESSDATA, find_tessdata

    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    if not any((Path(d) / "xyz.traineddata").exists() for d in DEBIAN_TESSDATA):
        with pytest.raises(FileNotFoundError, match="apt-get install tesseract-ocr-xyz"):
            find_tessdata("xyz")
