"""Per-page choice of the OCR engine by script (models.script_router): a page the first engine
reads unsure of gets a second look, and Tesseract's reading wins where its letters are mostly
Thai; with OCR_LANG "ch" (the default) where Tesseract's Thai data is installed, always with
"th". Fake engines for the rules; real engines on real pages for the rest:
tests/data/thai-receipt.png (tests/support/thai_receipt.py) and dev receipt 004 (skipped without
../shared), skipped without Debian's Thai data."""

from __future__ import annotations

import pytest
from PIL import Image

from models.ocr import OcrEngine, OcrLine
from models.ppocr_engine import PpOcrEngine
from models.script_router import ScriptRouter, mean_confidence, script_share
from models.tesseract_engine import find_tessdata
from pipeline.context import JobContext
from pipeline.runner import Extractor, ocr_engine, thai_routed
from tests.conftest import DATASETS, make_settings, needs_datasets
from tests.support.thai_receipt import THAI_RECEIPT


def thai_data_missing() -> bool:
    try:
        find_tessdata("tha+eng")
        return False
    except FileNotFoundError:
        return True


needs_thai_data = pytest.mark.skipif(
    thai_data_missing(), reason="Debian's tesseract-ocr-tha/-eng data is not installed"
)


class Fake(OcrEngine):
    def __init__(self, name: str, text: str, confidence: float) -> None:
        self.name, self.lines, self.calls = name, [OcrLine(text, (0, 0, 10, 10), confidence)], 0

    def recognize(self, image) -> list[OcrLine]:
        self.calls += 1
        return self.lines


def test_a_page_read_sure_never_pays_the_second_engine():
    thai = Fake("tesseract", "รวมทั้งสิ้น 125.00", 0.9)
    router = ScriptRouter(Fake("ppocr", "TOTAL 125.00", 0.98), {"Thai": thai})
    assert router.recognize(None)[0].text == "TOTAL 125.00" and thai.calls == 0
    assert router.name == "ppocr+tesseract" and router.recognize_by(None)[0] == "ppocr"


def test_an_unsure_page_takes_the_reading_that_is_mostly_thai_and_keeps_its_own_otherwise():
    garbage = Fake("ppocr", "uann laun 0021367", 0.87)
    name, lines = ScriptRouter(garbage, {"Thai": Fake("tesseract", "ใบกำกับภาษี 0021367", 0.9)}).recognize_by(None)
    assert (name, lines[0].text) == ("tesseract", "ใบกำกับภาษี 0021367")
    blurred = Fake("ppocr", "TOTAL 12S.00", 0.9)
    latin = Fake("tesseract", "TOTAL l25.00 ก", 0.8)  # a stray Thai mark on a Latin receipt
    router = ScriptRouter(blurred, {"Thai": latin})
    assert router.recognize(None)[0].text == "TOTAL 12S.00" and latin.calls == 1
    assert router.engine_for(None) is blurred


def test_confidence_is_weighted_by_characters_and_share_counts_letters_only():
    lines = [OcrLine("ab", (0, 0, 1, 1), 0.5), OcrLine("abcdefgh", (0, 0, 1, 1), 1.0)]
    assert mean_confidence(lines) == pytest.approx(0.9) and mean_confidence([]) == 1.0
    assert script_share([OcrLine("ภาษี 7%", (0, 0, 1, 1), 1.0)], "Thai") == 1.0
    assert script_share([OcrLine("123.00", (0, 0, 1, 1), 1.0)], "Thai") == 0.0


def test_a_script_without_a_known_block_is_refused():
    with pytest.raises(ValueError, match="Cyrillic"):
        ScriptRouter(Fake("ppocr", "", 1.0), {"Cyrillic": Fake("tesseract", "", 1.0)})


def test_without_thai_data_the_default_reads_with_the_engine_alone_and_th_names_the_packages(monkeypatch):
    monkeypatch.setattr("models.tesseract_engine.DEBIAN_TESSDATA", ())
    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    primary = Fake("ppocr", "", 1.0)
    assert thai_routed(primary, "tesseract", required=False) is primary
    with pytest.raises(FileNotFoundError, match="tesseract-ocr-tha"):
        thai_routed(primary, "tesseract", required=True)


def thai_models(tmp_path, lang: str = "th", **ocr):
    return make_settings(tmp_path, {"ocr": {"engine": "ppocr", "OCR_LANG": lang, **ocr}}).worker_models()


@pytest.mark.model
@needs_thai_data
def test_a_thai_page_reads_with_tesseract_and_its_words_without_syllable_gaps(tmp_path):
    router = ocr_engine(thai_models(tmp_path))
    assert isinstance(router, ScriptRouter) and router.name == "ppocr+tesseract"
    page = Image.open(THAI_RECEIPT).convert("RGB")
    assert router.engine_for(page).name == "tesseract"
    text = "\n".join(line.text for line in router.recognize(page))
    assert "รวมทั้งสิ้น 125.00" in text and "12/03/2024" in text


@pytest.mark.model
@needs_datasets
@needs_thai_data
def test_a_latin_receipt_still_reads_with_ppocr(tmp_path):
    router = ocr_engine(thai_models(tmp_path, "ch"))
    receipt = Image.open(DATASETS / "sroie" / "004.jpg").convert("RGB")
    assert router.engine_for(receipt).name == "ppocr"
    assert "30.90" in "\n".join(line.text for line in router.recognize(receipt))


@pytest.mark.model
@needs_thai_data
def test_the_default_reading_step_reads_thai_and_names_the_engine_that_read_it(tmp_path):
    doc = Extractor(thai_models(tmp_path, "ch")).read(
        JobContext("thai", "", visual_only=True), THAI_RECEIPT.read_bytes()
    )
    assert doc.ocr_engine == "tesseract" and "125.00" in doc.text and "รวม" in doc.text


@pytest.mark.model
def test_english_loads_the_engine_alone_and_no_thai_engine_refuses_thai(tmp_path):
    assert isinstance(ocr_engine(thai_models(tmp_path, "en")), PpOcrEngine)
    assert isinstance(ocr_engine(thai_models(tmp_path, "ch", thai_engine="")), PpOcrEngine)
    with pytest.raises(ValueError, match="no Thai"):
        ocr_engine(thai_models(tmp_path, thai_engine=""))
