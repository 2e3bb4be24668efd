"""PP-OCRv6 through the ``rapidocr`` 3.x package: the small detection and recognition models
that its wheel carries (multilingual: Latin and Chinese scripts in one recogniser), on
onnxruntime. It keeps the spaces between English words that the PP-OCRv4 "ch" models of
``rapidocr-onnxruntime`` drop (``bench/results/ocr.md``).

Only the bundled files are used: ``rapidocr`` downloads a model it does not find, so the
engine refuses to start when the bundled ones are missing rather than reach for a network a
customer's LAN does not have. No Thai (use ``tesseract`` for ``OCR_LANG=th``).
"""

from __future__ import annotations

from pathlib import Path

from models.ocr import OcrEngine, OcrLine
from models.rapidocr_engine import check_options, ocr_lines

# The files the rapidocr 3.10 wheel ships in rapidocr/models (checked at start, never fetched).
BUNDLED_MODELS = ("PP-OCRv6_det_small.onnx", "PP-OCRv6_rec_small.onnx", "ch_ppocr_mobile_v2.0_cls_mobile.onnx")


def bundled_models_dir() -> Path:
    """The folder of the models inside the installed ``rapidocr`` package. Raises
    FileNotFoundError naming a missing file (a rapidocr build without bundled weights)."""
    import rapidocr

    folder = Path(rapidocr.__file__).with_name("models")
    for name in BUNDLED_MODELS:
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder / name} is missing: install the pinned rapidocr wheel (scripts/setup)")
    return folder


def local_model(path: str, option: str) -> str:
    """``path`` (an operator's local ONNX file for ``option``) if it exists. Raises
    FileNotFoundError naming the option: rapidocr would otherwise try to download."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"ocr.{option} = {path!r}: no such file")
    return path


class PpOcrEngine(OcrEngine):
    """OCR with PP-OCRv6 small (``rapidocr`` 3.x). ``lang`` is OCR_LANG (``ch`` or ``en``: one
    multilingual model serves both); ``threads`` per onnxruntime session; ``device`` ``cpu`` or
    ``cuda`` (onnxruntime-gpu); ``rec_batch`` line crops per recognition call; ``det_model`` and
    ``rec_model``: local PP-OCR ONNX files to use instead of the bundled detector or recogniser
    (``ocr.ppocr_det_model``, ``ocr.ppocr_rec_model``; "" for the bundled ones)."""

    name = "ppocr"

    def __init__(
        self,
        lang: str = "ch",
        threads: int = 2,
        device: str = "cpu",
        rec_batch: int = 0,
        det_model: str = "",
        rec_model: str = "",
        **_: object,
    ) -> None:
        check_options(self.name, lang, device)
        folder = bundled_models_dir()
        from rapidocr import RapidOCR  # heavy: onnxruntime + opencv

        params: dict[str, object] = {
            "Global.log_level": "warning",
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            "Det.model_path": local_model(det_model, "ppocr_det_model")
            if det_model
            else str(folder / BUNDLED_MODELS[0]),
            "Rec.model_path": local_model(rec_model, "ppocr_rec_model")
            if rec_model
            else str(folder / BUNDLED_MODELS[1]),
            "Cls.model_path": str(folder / BUNDLED_MODELS[2]),
            "Rec.rec_batch_num": rec_batch or (64 if device == "cuda" else 6),
        }
        if device == "cuda":
            params["EngineConfig.onnxruntime.use_cuda"] = True
            # EXHAUSTIVE re-benchmarks every new crop shape (measurements: rapidocr on CUDA)
            params["EngineConfig.onnxruntime.cuda_ep_cfg.cudnn_conv_algo_search"] = "DEFAULT"
        self._ocr = RapidOCR(params=params)

    def recognize(self, image) -> list[OcrLine]:
        result = self._ocr(image.convert("RGB"))
        if result.boxes is None or result.txts is None:
            return []
        return ocr_lines(zip(result.boxes, result.txts, result.scores, strict=True))
