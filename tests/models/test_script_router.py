"""Per-page choice of the OCR engine by script (models.script_router): with OCR_LANG "th" a Thai
page goes to Tesseract (tha+eng), a Latin receipt to ppocr; other OCR_LANGs load ppocr alone.
Real engines on real pages: tests/data/thai-receipt.png (tests/support/thai_receipt.py) and
dev receipt 004 (skipped without ../shared); skipped without Debian's Thai and OSD data."""

from __future__ import annotations

import pytest
from PIL import Image

from models.ppocr_engine import PpOcrEngine
from models.script_router import ScriptRouter
from pipeline.context import JobContext
from pipeline.runner import Extractor, ocr_engine
from tests.conftest import DATASETS, make_settings, needs_datasets
from tests.support.thai_receipt import THAI_RECEIPT


def thai_data_missing() -> bool:
    from models.tesseract_engine import find_tessdata

    try:
        find_tessdata("tha+eng+osd")
        return False
    except FileNotFoundError:
        return True


pytestmark = [
    pytest.mark.model,
    pytest.mark.skipif(thai_data_missing(), reason="Debian's tesseract-ocr-tha/-osd data is not installed"),
]


def thai_models(tmp_path, **ocr):
    return make_settings(tmp_path, {"ocr": {"engine": "ppocr", "OCR_LANG": "th", **ocr}}).worker_models()


def test_a_thai_page_reads_with_tesseract_and_its_words_without_syllable_gaps(tmp_path):
    router = ocr_engine(thai_models(tmp_path))
    assert isinstance(router, ScriptRouter) and router.name == "ppocr+tesseract"
    page = Image.open(THAI_RECEIPT).convert("RGB")
    assert router.script(page) == "Thai"
    assert router.engine_for(page).name == "tesseract"
    text = "\n".join(line.text for line in router.recognize(page))
    assert "รวมทั้งสิ้น 125.00" in text and "12/03/2024" in text


@needs_datasets
def test_a_latin_receipt_still_reads_with_ppocr_when_ocr_lang_is_thai(tmp_path):
    router = ocr_engine(thai_models(tmp_path))
    receipt = Image.open(DATASETS / "sroie" / "004.jpg").convert("RGB")
    assert router.engine_for(receipt).name == "ppocr"
    assert "30.90" in "\n".join(line.text for line in router.recognize(receipt))


def test_the_reading_step_names_both_engines_and_reads_thai(tmp_path):
    doc = Extractor(thai_models(tmp_path)).read(JobContext("thai", "", visual_only=True), THAI_RECEIPT.read_bytes())
    assert doc.ocr_engine == "ppocr+tesseract" and "125.00" in doc.text and "รวม" in doc.text


def test_other_ocr_langs_load_the_engine_alone_and_no_thai_engine_refuses_thai(tmp_path):
    chinese = make_settings(tmp_path, {"ocr": {"engine": "ppocr", "OCR_LANG": "ch"}}).worker_models()
    assert isinstance(ocr_engine(chinese), PpOcrEngine)
    with pytest.raises(ValueError, match="no Thai"):
        ocr_engine(thai_models(tmp_path, thai_engine=""))
