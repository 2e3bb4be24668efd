"""The real OCR engines on a real scanned receipt (skipped when the documents or the engine's
language data are absent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from models.registry import load_ocr
from tests.conftest import DATASETS, make_settings, needs_datasets

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


@pytest.mark.skipif(tessdata_missing(), reason="Debian's tesseract-ocr-eng/-chi-sim/-tha data is not installed")
def test_tesseract_skips_a_text_line_without_text():
    # train receipt 414 (faint print): Tesseract's layout finds text lines with no text in them,
    # and tesserocr raised "No text returned", which failed the page; now they are left out
    lines = load_ocr("tesseract", lang="ch").recognize(Image.open(DATASETS / "train" / "sroie" / "414.jpg"))
    assert all(line.text for line in lines)


def test_tesseract_names_the_missing_package(monkeypatch, tmp_path):
    from models.tesseract_engine import DEBIAN_TESSDATA, find_tessdata

    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    if not any((Path(d) / "xyz.traineddata").exists() for d in DEBIAN_TESSDATA):
        with pytest.raises(FileNotFoundError, match="apt-get install tesseract-ocr-xyz"):
            find_tessdata("xyz")


def test_rapidocr_batch_of_pages_reads_each_page_like_one_at_a_time():
    engine = load_ocr("rapidocr", lang="ch", threads=1)
    pages = [Image.open(DATASETS / "sroie" / name).convert("RGB") for name in ("004.jpg", "007.jpg")]
    alone = [engine.recognize(page) for page in pages]
    batched = engine.recognize_batch(pages)
    assert [len(lines) for lines in batched] == [len(lines) for lines in alone]
    for one, many in zip(alone, batched, strict=True):
        assert [line.bbox for line in one] == [line.bbox for line in many]  # detection is per page
        # other padding than rapidocr's own, which may change a space
        same = sum(a.text.replace(" ", "") == b.text.replace(" ", "") for a, b in zip(one, many, strict=True))
        assert same >= 0.9 * len(one)
    assert engine.recognize_batch([]) == []
    # a page reads the same whatever pages share its batch (a result must not depend on the load)
    assert engine.recognize_batch(pages[:1]) == batched[:1]
    assert engine.recognize_batch(pages[::-1])[1] == batched[0]


@pytest.mark.parametrize("engine", ["rapidocr", "ppocr"])
def test_paddle_engines_on_cuda_without_onnxruntime_gpu_say_what_to_install(engine):
    import onnxruntime

    if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        pytest.skip("onnxruntime-gpu is installed here")
    with pytest.raises(RuntimeError, match="install onnxruntime-gpu"):
        load_ocr(engine, lang="ch", device="cuda")


@pytest.mark.parametrize("engine", ["rapidocr", "ppocr"])
def test_paddle_engines_refuse_thai_and_name_the_engine_that_reads_it(engine):
    with pytest.raises(ValueError, match='ocr.engine = "tesseract" for OCR_LANG=th'):
        load_ocr(engine, lang="th")


def test_ppocr_loads_and_reads_with_its_bundled_models_and_no_network(monkeypatch):
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError(f"the OCR engine opened a connection: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    lines = load_ocr("ppocr", lang="en", threads=1).recognize(Image.open(RECEIPT).convert("RGB"))
    text = "\n".join(line.text for line in lines)
    # PP-OCRv6 keeps the spaces that the PP-OCRv4 "ch" model drops (MR D.I.Y.(M)SDN BHD)
    assert "SDN BHD" in text and "30.90" in text
    assert all(0 <= line.confidence <= 1 and line.bbox[0] < line.bbox[2] for line in lines)
    # plain floats: rapidocr 3's numpy float32 boxes made `appliance ocr --json` fail
    assert all(type(v) is float for line in lines for v in (*line.bbox, line.confidence))


def test_ppocr_takes_an_operators_local_detector_and_names_a_missing_one(tmp_path):
    from models.rapidocr_engine import bundled_detector
    from pipeline.runner import ocr_engine

    v4_det = bundled_detector()
    models = make_settings(tmp_path, {"ocr": {"engine": "ppocr", "ppocr_det_model": str(v4_det)}}).worker_models()
    assert dict(models.ocr_options) == {"det_model": str(v4_det), "rec_model": ""}
    lines = ocr_engine(models).recognize(Image.open(RECEIPT).convert("RGB"))
    assert any("30.90" in line.text for line in lines)
    with pytest.raises(FileNotFoundError, match="ocr.ppocr_rec_model = .*no such file"):
        load_ocr("ppocr", rec_model=str(tmp_path / "rec.onnx"))


def test_ppocr_without_its_bundled_models_refuses_to_start(monkeypatch):
    from models import ppocr_engine

    monkeypatch.setattr(ppocr_engine, "BUNDLED_MODELS", ("PP-OCRv6_det_huge.onnx",))
    with pytest.raises(FileNotFoundError, match="PP-OCRv6_det_huge.onnx is missing"):
        load_ocr("ppocr", lang="en")
